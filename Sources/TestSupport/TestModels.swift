public import DataModel
import Foundation
import ModelMigration
public import SQLiteStore

/// Compiled models for tests: the package's own (`Models/Contacts`, the Apple-parity
/// fixtures) and models written inline as YAML. Each is compiled once per test run
/// (tests in parallel share it), so that equal text gives an equal `CompiledVersion`.
public enum TestModels {
    /// The package's root folder (this file is `Sources/TestSupport/TestModels.swift`).
    package static let packageRoot: String = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    /// `Models/`, the folder `migrate` reads by default.
    package static var modelsFolder: String { packageRoot + "/Models" }

    /// The example model, `Models/Contacts` (every version in the folder).
    /// A version with one entity, `Sample`, holding one optional attribute of every type
    /// (`i16` … `opaque`, a transformable): for tests of values as stored and read.
    package static let everyOptionalType = """
        entities:
          Sample:
            attributes:
              i16: integer16?
              i32: integer32?
              i64: integer64?
              amount: decimal?
              ratio: double?
              weight: float?
              text: string?
              flag: boolean?
              stamp: date?
              payload: binary?
              token: uuid?
              link: uri?
              opaque: { type: transformable, optional: true, transformer: NSSecureUnarchiveFromData }
        """

    package static func contacts() throws -> CompiledModel {
        try TestCache.shared.model("path:Models/Contacts") { () throws -> CompiledModel in
            try ModelLoader.loadModel(path: modelsFolder + "/Contacts")
        }
    }

    /// A hand transcription of a real Core Data model, under
    /// `Tests/DataModelTests/Fixtures/AppleParity/<name>`.
    package static func appleParity(_ name: String) throws -> CompiledModel {
        try TestCache.shared.model("path:AppleParity/\(name)") { () throws -> CompiledModel in
            try ModelLoader.loadModel(path: packageRoot + "/Tests/DataModelTests/Fixtures/AppleParity/" + name)
        }
    }

    /// Compiles a model written inline: `versions[i]` is the text of version i + 1
    /// without its `model:` and `version:` lines, which are added. Throws the
    /// loader's diagnostics when the text is not a valid model.
    public static func compile(_ name: String, versions: [String]) throws -> CompiledModel {
        try TestCache.shared.model("text:\(name)\u{0}" + versions.joined(separator: "\u{0}")) {
            () throws -> CompiledModel in
            let directory = try TemporaryDirectory(prefix: "mm-model")
            defer { directory.remove() }
            for (offset, text) in versions.enumerated() {
                try directory.write("\(name)/\(offset + 1).yaml", "model: \(name)\nversion: \(offset + 1)\n" + text)
            }
            return try ModelLoader.loadModel(path: directory.file(name))
        }
    }

    /// Compiles a one-version model written inline (see `compile(_:versions:)`).
    public static func compile(_ name: String, _ text: String) throws -> CompiledVersion {
        try compile(name, versions: [text]).versions[0]
    }
}

extension TemporaryDirectory {
    /// A new empty store of `version` in the folder, open for writing: a copy of one
    /// made by `Store.create` (same tables, metadata and UUID for every copy).
    /// Writes are not synced to disk (`PRAGMA synchronous = OFF`): tests check data,
    /// not durability. Tests of `Store.create` itself call it directly.
    public func createStore(_ name: String = "store.sqlite", version: CompiledVersion) throws -> Store {
        let bytes = try TestCache.shared.storeBytes(version)
        guard FileManager.default.createFile(atPath: file(name), contents: Data(bytes)) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: file(name)])
        }
        let store = try Store.open(path: file(name), access: .readWrite)
        try store.connection.execute("PRAGMA synchronous = OFF")
        return store
    }

    /// Creates a store of a one-version model written inline (see
    /// `TestModels.compile(_:_:)`); returns the open store and the compiled version.
    public func createStore(_ name: String = "store.sqlite", model: String, yaml: String) throws -> (
        store: Store, version: CompiledVersion
    ) {
        let version = try TestModels.compile(model, yaml)
        return (try createStore(name, version: version), version)
    }

    /// The names in the folder, sorted (to see which side files SQLite left).
    public func contents() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path).sorted()
    }
}

extension TemporaryDirectory {
    /// Creates a plain SQLite database by running `sql` (statements separated by
    /// semicolons) and returns its path.
    @discardableResult
    package func createDatabase(_ name: String, sql: String) throws -> String {
        let connection = try Connection(path: file(name), mode: .readWriteCreate)
        try connection.execute(sql)
        try connection.close()
        return file(name)
    }
}
