public import DataModel
public import SQLiteStore

/// Why the model version of a store could not be determined.
public struct UnknownVersionError: Error, Sendable, CustomStringConvertible {
    /// The store's path.
    public var path: String
    /// The recognition result, when there were models to compare with.
    public var recognition: VersionRecognition?
    /// Set when the store's version exists in the models but was edited since.
    public var drift: VersionDrift? = nil
    /// Set when the store names a model none of the given models is: the models
    /// folder is the wrong one. The names of the models given follow.
    public var foreignModel: (store: String, available: [String])? = nil

    /// Creates the error.
    public init(path: String, recognition: VersionRecognition?, drift: VersionDrift? = nil) {
        self.path = path
        self.recognition = recognition
        self.drift = drift
    }

    public var description: String {
        if let drift { return "\(path): " + drift.explanation }
        if let foreign = foreignModel {
            return """
                \(path): this store is a \(foreign.store) store, and the models given hold \
                \(foreign.available.isEmpty ? "no model" : "models: " + foreign.available.joined(separator: ", ")) \
                (is --models the folder holding \(foreign.store)/?)
                """
        }
        return "\(path): " + (recognition?.unknownExplanation ?? "no model under --models describes this store")
    }
}

extension Store {
    /// The compiled version this store holds: recognised by its hashes among
    /// `models` when one matches, else the model cached in the store when its
    /// hashes agree with the metadata.
    public func currentVersion(among models: [CompiledModel]) throws -> CompiledVersion {
        let metadata = try readMetadata()
        if let name = metadata.modelName, !models.isEmpty, !models.contains(where: { $0.name == name }) {
            var error = UnknownVersionError(path: path, recognition: nil)
            error.foreignModel = (name, models.map(\.name).sorted())
            throw error
        }
        let recognition = VersionRecognition.recognize(metadata, among: models)
        if let recognition, let number = recognition.version,
            let version = models.first(where: { $0.name == recognition.model })?.version(number)
        {
            return version
        }
        if let cached = try readModelCache(), cached.versionHashes == metadata.versionHashes {
            try Self.refuseDrift(cached, among: models, path: path, recognition: recognition)
            return cached
        }
        throw UnknownVersionError(path: path, recognition: recognition)
    }

    /// The model a store keeps of its own version may stand in for that version only
    /// when its YAML is gone: when the YAML is there with other hashes, the shipped
    /// version was edited (exit 5, every difference named).
    static func refuseDrift(
        _ cached: CompiledVersion, among models: [CompiledModel], path: String,
        recognition: VersionRecognition?
    ) throws {
        guard let shipped = models.first(where: { $0.name == cached.model })?.version(cached.version),
            shipped.versionHashes != cached.versionHashes
        else { return }
        throw UnknownVersionError(
            path: path, recognition: recognition, drift: VersionDrift(recorded: cached, now: shipped))
    }
}
