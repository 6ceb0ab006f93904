/// Why a store could not be opened, read or written.
///
/// A struct with a `kind` so that new cases can be added without breaking users.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, broadly.
    public enum Kind: Sendable, Hashable {
        /// No file at the path.
        case notFound
        /// The file exists but is not an SQLite database.
        case notADatabase
        /// The file is damaged or truncated.
        case corrupt
        /// An SQLite database without Core Data's tables.
        case notAStore
        /// The metadata plist is missing or malformed.
        case invalidMetadata
        /// Another process holds a lock longer than the timeout allowed.
        case locked
        /// The file exists and overwriting was not asked for.
        case alreadyExists
        /// No file at the path, but a removed store's `-wal` or hot `-journal` is
        /// still beside it: SQLite would apply it to a new store there.
        case leftoverLog
        /// The store's layout does not match what the model says it should be.
        case layoutMismatch
        /// An object to insert or load breaks the model (type, required value, target).
        case invalidObject
        /// A stored value cannot be read or written out without being changed (TEXT
        /// that is not UTF-8, a BLOB where JSON Lines would carry text), as another
        /// tool may have stored it.
        case invalidValue
        /// The model has no such entity or property.
        case unknownEntity
        /// The file or a folder on its path may not be read or written by this user.
        case permissionDenied
        /// The model version says what this toolkit does not store (composite
        /// attributes: `CompiledVersion.storageRefusal`).
        case unsupportedModel
        /// A signal stopped the command before it changed anything.
        case interrupted
        /// Any other SQLite failure.
        case sqlite
    }

    /// What went wrong.
    public var kind: Kind
    /// `subject: detail`, for people.
    public var message: String
    /// The store's path.
    public var path: String?
    /// The SQLite error underneath, when there is one.
    package var underlying: SQLiteError?

    /// Creates an error.
    package init(_ kind: Kind, _ message: String, path: String? = nil, underlying: SQLiteError? = nil) {
        self.kind = kind
        self.message = message
        self.path = path
        self.underlying = underlying
    }

    public var description: String {
        (path.map { "\($0): " } ?? "") + message
    }

    /// Wraps an SQLite error with the store path and a readable message.
    package static func from(_ error: SQLiteError, path: String) -> StoreError {
        switch error.kind {
        case .notADatabase:
            return StoreError(
                .notADatabase, "not an SQLite database (the file header is not SQLite's)", path: path, underlying: error
            )
        case .corrupt:
            return StoreError(
                .corrupt, "the database is damaged or truncated (SQLite: \(error.message))", path: path,
                underlying: error)
        case .busy, .locked:
            return StoreError(
                .locked, "the store is locked by another process (SQLite: \(error.message))", path: path,
                underlying: error)
        case .full, .ioError:
            return StoreError(.sqlite, error.explained, path: path, underlying: error)
        case .cantOpen:
            return StoreError(
                .notFound, "cannot open the file (SQLite: \(error.message))", path: path, underlying: error)
        default:
            return StoreError(.sqlite, error.description, path: path, underlying: error)
        }
    }
}
