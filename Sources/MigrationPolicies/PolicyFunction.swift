public import DataModel
package import SQLiteStore

/// A method of a policy that a mapping file calls per source object, as Core Data
/// calls a method of an `NSEntityMigrationPolicy` subclass from
/// `FUNCTION($entityPolicy, "firstNameFrom:", $source.fullName)`:
///
/// ```swift
/// public static var functions: [PolicyFunction] {
///     [PolicyFunction("firstNameFrom:") { arguments in .string(NameSplitter.split(arguments.string(0)).0) }]
/// }
/// ```
///
/// The call runs inside the hop's set-based `INSERT … SELECT`, as an SQL function
/// registered for the copy: no object graph, one Swift call per source row. The
/// arguments are the values of the mapping file's argument expressions for the
/// row, typed as the checker typed them; the result is the destination attribute's
/// value (nil for nil), held to that attribute's rules (type, required, range,
/// `min`/`max`). A thrown error fails the apply naming the row; the store is left
/// as it was.
public struct PolicyFunction {
    /// The Objective-C selector the mapping file calls (`firstNameFrom:`,
    /// `defaultIsActiveForBundleID:team:`, `migrateIdentifier`): one argument per colon.
    public var selector: String
    /// Whether the result depends on the arguments alone (no clock, no counter, no
    /// state carried between rows), so SQLite may evaluate a call with constant
    /// arguments once (`SQLITE_DETERMINISTIC`).
    public var isDeterministic: Bool
    /// The method.
    public var body: (PolicyArguments) throws -> AttributeValue?

    /// A function for `selector`.
    public init(
        _ selector: String, deterministic: Bool = true, _ body: @escaping (PolicyArguments) throws -> AttributeValue?
    ) {
        self.selector = selector
        self.isDeterministic = deterministic
        self.body = body
    }

    /// The number of arguments `selector` takes: its colons.
    public var arity: Int { Self.arity(of: selector) }

    /// The number of arguments a selector takes: its colons.
    public static func arity(of selector: String) -> Int {
        selector.utf8.reduce(0) { $0 + ($1 == UInt8(ascii: ":") ? 1 : 0) }
    }
}

/// The argument values of one call of a ``PolicyFunction``, for one source row.
/// Read them during the call: text is SQLite's own buffer, not a copy.
public struct PolicyArguments {
    let values: SQLFunctionArguments
    /// The first SQL argument is the row's key; the policy's start after it.
    static let offset = 1
    /// The types of the arguments, as the mapping file's expressions have them.
    let types: [AttributeType?]

    /// The arguments of one call of the SQL function bound to a policy function.
    package init(values: SQLFunctionArguments, types: [AttributeType?]) {
        self.values = values
        self.types = types
    }

    /// How many arguments the selector takes.
    public var count: Int { values.count - Self.offset }

    /// The source row's primary key (`Z_PK`).
    public var sourceKey: Int64 { values.integer(0) }

    /// Argument `index` as an attribute value of its expression's type; nil for nil.
    public subscript(index: Int) -> AttributeValue? {
        let i = index + Self.offset
        guard !values.isNull(i) else { return nil }
        if let type = types[index] { return ValueCoding.attributeValue(values.value(i), as: type) }
        switch values.value(i) {
        case .integer(let v): return .integer(v)
        case .real(let v): return .double(v)
        case .text(let v): return .string(v)
        case .blob(let v): return .binary(v)
        case .null: return nil
        }
    }

    /// Argument `index` as a string (numbers as SQLite writes them); nil for nil.
    public func string(_ index: Int) -> String? {
        values.withText(index + Self.offset) { $0.map { String(decoding: $0, as: UTF8.self) } }
    }

    /// The UTF-8 bytes of argument `index` as text, nil for nil, valid inside `body`
    /// only: no `String` is made, for functions called on millions of rows.
    public func withUTF8<R>(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>?) throws -> R) rethrows -> R {
        try values.withText(index + Self.offset, body)
    }

    /// Argument `index` as an integer (a double truncated); nil for nil.
    public func integer(_ index: Int) -> Int64? {
        values.isNull(index + Self.offset) ? nil : values.integer(index + Self.offset)
    }

    /// Argument `index` as a double; nil for nil.
    public func double(_ index: Int) -> Double? {
        values.isNull(index + Self.offset) ? nil : values.double(index + Self.offset)
    }

    /// Argument `index` as a boolean (non-zero is true); nil for nil.
    public func boolean(_ index: Int) -> Bool? { integer(index).map { $0 != 0 } }

    /// Argument `index` as a date, seconds since 2001-01-01T00:00:00Z; nil for nil.
    public func date(_ index: Int) -> Double? { double(index) }
}
