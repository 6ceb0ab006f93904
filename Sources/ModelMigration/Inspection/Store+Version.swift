import DataModel
import SQLiteStore

/// Why the model version of a store could not be determined.
public struct UnknownVersionError: Error, Sendable, CustomStringConvertible {
    /// The store's path.
    public var path: String
    /// The recognition result, when there were models to compare with.
    public var recognition: VersionRecognition?

    public var description: String {
        "\(path): " + (recognition?.unknownExplanation ?? "no model under --models describes this store")
    }
}

extension Store {
    /// The compiled version this store holds: recognised by its hashes among
    /// `models` when one matches, else the model cached in the store when its
    /// hashes agree with the metadata.
    public func currentVersion(among models: [CompiledModel]) throws -> CompiledVersion {
        let metadata = try readMetadata()
        let recognition = VersionRecognition.recognize(metadata, among: models)
        if let recognition, let number = recognition.version,
           let version = models.first(where: { $0.name == recognition.model })?.version(number) {
            return version
        }
        if let cached = try readModelCache(), cached.versionHashes == metadata.versionHashes {
            return cached
        }
        throw UnknownVersionError(path: path, recognition: recognition)
    }
}
