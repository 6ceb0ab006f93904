import Foundation
import ModelMigration
import TestSupport
import Testing

/// A temporary working folder in which `migrate` runs (in process, or the built binary
/// with `binary(_:)`), as a deploy script would run it (no `./Models` there unless a test passes `--models`).
struct CLIFixture {
    let directory: TemporaryDirectory

    /// A working folder with `Models/Contacts` holding versions 1 to 3 of the
    /// package's example model (later versions are left out, so that "the current
    /// version" stays 3 whatever is added to the package).
    init() throws {
        directory = try TemporaryDirectory(prefix: "MigrateCLITests")
        for version in 1...3 {
            let text = try String(
                contentsOfFile: "\(TestModels.modelsFolder)/Contacts/\(version).yaml", encoding: .utf8)
            try directory.write("Models/Contacts/\(version).yaml", text)
        }
    }

    func remove() { directory.remove() }

    /// `--models` for the folder's copy of the example model.
    var models: [String] { ["--models", "Models"] }

    /// Runs `migrate` in the folder.
    func migrate(_ arguments: [String], stdin: String? = nil) throws -> CommandResult {
        try InProcess.migrate(arguments, in: directory.path, stdin: stdin)
    }

    /// Runs the built `migrate` in the folder: for what a run in process cannot show
    /// (another process holding the store, signals, limits).
    func binary(_ arguments: [String], stdin: String? = nil) throws -> CommandResult {
        try CommandRunner.migrate(arguments, in: directory.path, stdin: stdin)
    }

    /// Runs `migrate` in the folder, in process.
    func migrate(_ arguments: String...) throws -> CommandResult {
        try migrate(arguments)
    }

    /// A Contacts store of `version` made by `migrate create` (once per test run;
    /// later calls copy its bytes, which is much faster than creating), by name.
    @discardableResult
    func createContacts(_ name: String = "contacts.sqlite", version: Int) throws -> String {
        try directory.write(
            name, bytes: try StoreTemplates.shared.bytes(version: version, models: directory.file("Models")))
        return name
    }

    func path(_ name: String) -> String { directory.file(name) }

    func snapshot(_ name: String) -> FileSnapshot { FileSnapshot(directory.file(name)) }

    /// The JSON object `migrate … --json` printed.
    static func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }
}

/// Stores made by `migrate create`, shared by tests running in parallel.
final class StoreTemplates: Sendable {
    static let shared = StoreTemplates()
    private let templates = Locked([Int: [UInt8]]())

    func bytes(version: Int, models: String) throws -> [UInt8] {
        if let bytes = templates.withLock({ $0[version] }) { return bytes }
        let directory = try TemporaryDirectory(prefix: "MigrateCLITests-template")
        defer { directory.remove() }
        let result = try InProcess.migrate(
            ["create", "--models", models, "--model", "Contacts", "--version", String(version), "template.sqlite"],
            in: directory.path)
        #expect(result.status == 0, "\(result.stderr)")
        let bytes = try #require(
            FileManager.default.contents(atPath: directory.file("template.sqlite")).map { [UInt8]($0) })
        return templates.withLock { templates in
            if let first = templates[version] { return first }
            templates[version] = bytes
            return bytes
        }
    }
}
