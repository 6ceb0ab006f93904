import Foundation
import Testing
import TestSupport

/// A temporary working folder in which the built `migrate` runs, as a deploy script
/// would run it (no `./Models` there unless a test passes `--models`).
struct CLIFixture {
    let directory: TemporaryDirectory

    /// A working folder with `Models/Contacts` holding versions 1 to 3 of the
    /// package's example model (later versions are left out, so that "the current
    /// version" stays 3 whatever is added to the package).
    init() throws {
        directory = try TemporaryDirectory(prefix: "MigrateCLITests")
        for version in 1...3 {
            let text = try String(contentsOfFile: "\(TestModels.modelsFolder)/Contacts/\(version).yaml", encoding: .utf8)
            try directory.write("Models/Contacts/\(version).yaml", text)
        }
    }

    func remove() { directory.remove() }

    /// `--models` for the folder's copy of the example model.
    var models: [String] { ["--models", "Models"] }

    /// Runs `migrate` in the folder.
    func migrate(_ arguments: [String], stdin: String? = nil) throws -> CommandResult {
        try CommandRunner.migrate(arguments, in: directory.path, stdin: stdin)
    }

    /// Runs `migrate` in the folder.
    func migrate(_ arguments: String...) throws -> CommandResult {
        try migrate(arguments)
    }

    /// Creates a Contacts store of `version` with `migrate create` and returns its name.
    @discardableResult
    func createContacts(_ name: String = "contacts.sqlite", version: Int) throws -> String {
        let result = try CommandRunner.migrate(["create"] + models + ["--model", "Contacts", "--version", String(version), name], in: directory.path)
        #expect(result.status == 0, "\(result.stderr)")
        return name
    }

    func path(_ name: String) -> String { directory.file(name) }

    func snapshot(_ name: String) -> FileSnapshot { FileSnapshot(directory.file(name)) }

    /// The JSON object `migrate … --json` printed.
    static func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }
}
