import Foundation
import TestSupport
import Testing

@testable import DataModel

/// Swift Testing has a `SourceLocation` too.
private typealias SourceLocation = DataModel.SourceLocation

@Suite struct ModelLoaderTests {
    // MARK: - Helpers

    /// A valid version file: `model:` on line 1 (value at column 8), `version:` on line 2
    /// (value at column 10).
    private func version(_ model: String, _ number: Int, entity: String = "Item") -> String {
        "model: \(model)\nversion: \(number)\nentities:\n  \(entity):\n    attributes: { name: string }\n"
    }

    /// A temporary folder holding `files` (relative path → text).
    private func folder(_ files: [String: String]) throws -> TemporaryDirectory {
        let folder = try TemporaryDirectory(prefix: "model-loader")
        for (name, text) in files { try folder.write(name, text) }
        return folder
    }

    private func error(_ message: String, at location: SourceLocation? = nil, hint: String? = nil) -> Diagnostic {
        Diagnostic(.error, message, at: location, hint: hint)
    }

    // MARK: - What a path can be

    @Test func aFolderOfModels() throws {
        let models = try folder([
            "Alpha/1.yaml": version("Alpha", 1),
            "Alpha/2.yaml": version("Alpha", 2, entity: "Thing"),
            "Beta/1.yml": version("Beta", 1),
            "README.md": "not a model",
            ".hidden/1.yaml": version("Hidden", 1),
        ])
        defer { models.remove() }
        let result = ModelLoader.load(path: models.path)
        #expect(result.diagnostics == [])
        #expect(result.models.map(\.name) == ["Alpha", "Beta"])
        #expect(result.models.map(\.path) == [models.file("Alpha"), models.file("Beta")])
        #expect(result.models.map { $0.versions.map(\.version) } == [[1, 2], [1]])
        #expect(
            result.models.map { $0.versions.map(\.file) } == [
                [models.file("Alpha/1.yaml"), models.file("Alpha/2.yaml")], [models.file("Beta/1.yml")],
            ])
        let compiled = try result.compiledModels()
        #expect(compiled.map(\.name) == ["Alpha", "Beta"])
        #expect(compiled[0].versions.map { $0.entities.map(\.name) } == [["Item"], ["Thing"]])
        #expect(compiled[0].current.version == 2)
        #expect(
            Set(result.sources.keys) == [
                models.file("Alpha/1.yaml"), models.file("Alpha/2.yaml"), models.file("Beta/1.yml"),
            ])
        #expect(result.sources[models.file("Beta/1.yml")] == version("Beta", 1))
    }

    @Test func aModelFolder() throws {
        let models = try folder(["Alpha/1.yaml": version("Alpha", 1), "Alpha/2.yaml": version("Alpha", 2)])
        defer { models.remove() }
        let result = ModelLoader.load(path: models.file("Alpha"))
        #expect(result.diagnostics == [])
        #expect(result.models.map(\.name) == ["Alpha"])
        #expect(result.models.map(\.path) == [models.file("Alpha")])
        #expect(result.models.first?.compiled?.versions.map(\.version) == [1, 2])
        #expect(
            try ModelLoader.loadModel(path: models.file("Alpha")).versions.map(\.file)
                == [models.file("Alpha/1.yaml"), models.file("Alpha/2.yaml")])
    }

    @Test func aSingleVersionFile() throws {
        let models = try folder(["Alpha/1.yaml": version("Alpha", 1), "Alpha/2.yaml": version("Other", 2)])
        defer { models.remove() }
        let result = ModelLoader.load(path: models.file("Alpha/2.yaml"))
        // Checked on its own: the folder's name and the other versions do not matter.
        #expect(result.diagnostics == [])
        #expect(result.models.map(\.name) == ["Other"])
        #expect(result.models.map(\.path) == [models.file("Alpha/2.yaml")])
        #expect(result.models.first?.compiled?.versions.map(\.version) == [2])
        #expect(result.models.first?.compiled?.name == "Other")
    }

    @Test func warningsDoNotStopCompilation() throws {
        let models = try folder([
            "Alpha/1.yaml": """
            model: Alpha
            version: 1
            entities:
              Item:
                relationships:
                  next: { destination: Item }

            """
        ])
        defer { models.remove() }
        let result = ModelLoader.load(path: models.file("Alpha"))
        #expect(
            result.diagnostics == [
                Diagnostic(
                    .warning, "relationship 'Item.next': has no inverse; Core Data cannot keep both sides consistent",
                    at: SourceLocation(file: models.file("Alpha/1.yaml"), line: 6, column: 7),
                    hint:
                        """
                        add a relationship on 'Item' and name it with `inverse:`, or `noInverse: true` when it is \
                        one-way on purpose
                        """
                )
            ])
        #expect(!result.hasErrors)
        #expect(try result.compiledModels().map(\.name) == ["Alpha"])
    }

    // MARK: - Versions and names

    @Test func versionDifferentFromTheFileName() throws {
        let models = try folder(["Alpha/1.yaml": version("Alpha", 1), "Alpha/2.yaml": version("Alpha", 3)])
        defer { models.remove() }
        let result = ModelLoader.load(path: models.file("Alpha"))
        #expect(
            result.diagnostics == [
                error(
                    "version: the file is named 2.yaml but says version 3",
                    at: SourceLocation(file: models.file("Alpha/2.yaml"), line: 2, column: 10),
                    hint: "a version's number is its file name; add a new file for a new version")
            ])
        #expect(result.models.first?.compiled == nil)
        #expect(result.models.first?.versions.map(\.version) == [1, 3])
    }

    @Test func twoFilesForOneVersion() throws {
        let models = try folder(["Alpha/1.yml": version("Alpha", 1), "Alpha/1.yaml": version("Alpha", 1)])
        defer { models.remove() }
        let result = ModelLoader.load(path: models.file("Alpha"))
        #expect(
            result.diagnostics == [
                error("\(models.file("Alpha/1.yml")): duplicate version 1 (also \(models.file("Alpha/1.yaml")))")
            ])
        #expect(result.models.first?.compiled == nil)
    }

    @Test func leadingZerosAreNotAVersionNumber() throws {
        let models = try folder(["Alpha/01.yaml": version("Alpha", 1)])
        defer { models.remove() }
        let result = ModelLoader.load(path: models.file("Alpha"))
        #expect(
            result.diagnostics.first?.message
                == "\(models.file("Alpha/01.yaml")): a version file is named <N>.yaml with N = 1, 2, 3, …")
        #expect(result.models.first?.compiled == nil)
    }

    @Test func missingVersions() throws {
        let models = try folder([
            "One/1.yaml": version("One", 1), "One/2.yaml": version("One", 2), "One/4.yaml": version("One", 4),
            "Two/1.yaml": version("Two", 1), "Two/4.yaml": version("Two", 4),
            "Three/3.yaml": version("Three", 3),
        ])
        defer { models.remove() }
        let result = ModelLoader.load(path: models.path)
        #expect(
            result.diagnostics == [
                error("\(models.file("One")): missing version 3 (versions are numbered 1, 2, 3, … without gaps)"),
                error("\(models.file("Three")): missing versions 1, 2 (versions are numbered 1, 2, 3, … without gaps)"),
                error("\(models.file("Two")): missing versions 2, 3 (versions are numbered 1, 2, 3, … without gaps)"),
            ])
        #expect(result.models.map(\.name) == ["One", "Three", "Two"])
        #expect(result.models.map { $0.compiled == nil } == [true, true, true])
    }

    /// Issue 17, item 9: a file named after a huge number made `validate` list (and
    /// allocate) every missing version; gaps are ranges, whatever their size.
    @Test func gapsInTheVersionSequenceAreRanges() throws {
        let models = try folder([
            "Huge/1.yaml": version("Huge", 1), "Huge/100000000.yaml": version("Huge", 100_000_000),
            "Max/1.yaml": version("Max", 1), "Max/9223372036854775807.yaml": version("Max", Int.max),
            "Mixed/1.yaml": version("Mixed", 1), "Mixed/2.yaml": version("Mixed", 2),
            "Mixed/4.yaml": version("Mixed", 4),
            "Mixed/7.yaml": version("Mixed", 7), "Mixed/100.yaml": version("Mixed", 100),
        ])
        defer { models.remove() }
        let result = ModelLoader.load(path: models.path)
        #expect(
            result.diagnostics == [
                error(
                    """
                    \(models.file("Huge")): missing versions 2–99999999 (versions are numbered 1, 2, 3, … without gaps)
                    """
                ),
                error(
                    """
                    \(models.file("Max")): missing versions 2–9223372036854775806 (versions are numbered 1, 2, 3, … \
                    without gaps)
                    """
                ),
                error(
                    """
                    \(models.file("Mixed")): missing versions 3, 5, 6, 8–99 (versions are numbered 1, 2, 3, … without \
                    gaps)
                    """
                ),
            ])
        #expect(result.models.map { $0.compiled == nil } == [true, true, true])
        #expect(
            result.models.map { $0.versions.map(\.version) } == [[1, 100_000_000], [1, Int.max], [1, 2, 4, 7, 100]])
    }

    @Test func aVersionNumberBeyondIntIsAnErrorNamingTheFile() throws {
        let models = try folder([
            "Alpha/1.yaml": version("Alpha", 1), "Alpha/99999999999999999999.yaml": version("Alpha", 2),
        ])
        defer { models.remove() }
        let result = ModelLoader.load(path: models.file("Alpha"))
        #expect(
            result.diagnostics == [
                error(
                    """
                    \(models.file("Alpha/99999999999999999999.yaml")): version number 99999999999999999999 is too \
                    large (at most 9223372036854775807)
                    """,
                    hint: "versions are numbered 1, 2, 3, … without gaps")
            ])
        #expect(result.models.first?.compiled == nil)
    }

    @Test func missingVersionsOfNumbers() {
        #expect(ModelLoader.missingVersions([1, 2, 3])?.text == nil)
        #expect(ModelLoader.missingVersions([3]).map { [$0.text, "\($0.count)"] } == ["1, 2", "2"])
        #expect(ModelLoader.missingVersions([4, 1]).map { [$0.text, "\($0.count)"] } == ["2, 3", "2"])
        #expect(ModelLoader.missingVersions([2, 6]).map { [$0.text, "\($0.count)"] } == ["1, 3–5", "4"])
        #expect(
            ModelLoader.missingVersions([Int.max]).map { [$0.text, "\($0.count)"] } == [
                "1–9223372036854775806", "9223372036854775806",
            ])
    }

    @Test func fileNamesThatAreNotVersionNumbers() throws {
        let models = try folder([
            "Alpha/1.yaml": version("Alpha", 1), "Alpha/first.yaml": version("Alpha", 2),
            "Alpha/0.yaml": version("Alpha", 0), "Alpha/2.yaml.yaml": version("Alpha", 2),
        ])
        defer { models.remove() }
        let result = ModelLoader.load(path: models.file("Alpha"))
        let hint = "rename it, or move it out of the model folder"
        #expect(
            result.diagnostics == [
                error(
                    "\(models.file("Alpha/0.yaml")): a version file is named <N>.yaml with N = 1, 2, 3, …", hint: hint),
                error(
                    "\(models.file("Alpha/2.yaml.yaml")): a version file is named <N>.yaml with N = 1, 2, 3, …",
                    hint: hint),
                error(
                    "\(models.file("Alpha/first.yaml")): a version file is named <N>.yaml with N = 1, 2, 3, …",
                    hint: hint),
            ])
        #expect(result.models.first?.versions.map(\.version) == [1])
        #expect(result.models.first?.compiled == nil)
    }

    @Test func modelNameDifferentFromTheFolder() throws {
        let models = try folder(["Alpha/1.yaml": version("Beta", 1)])
        defer { models.remove() }
        let result = ModelLoader.load(path: models.file("Alpha"))
        #expect(
            result.diagnostics == [
                error(
                    "model: 'Beta' differs from its folder's name 'Alpha'",
                    at: SourceLocation(file: models.file("Alpha/1.yaml"), line: 1, column: 8))
            ])
        #expect(result.models.map(\.name) == ["Alpha"])
        #expect(result.models.first?.compiled == nil)
    }

    @Test func emptyFolders() throws {
        let models = try folder(["Alpha/1.yaml": version("Alpha", 1)])
        defer { models.remove() }
        try FileManager.default.createDirectory(atPath: models.file("Empty"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: models.file("Nothing/Here"), withIntermediateDirectories: true)
        #expect(
            ModelLoader.load(path: models.path).diagnostics == [
                error("\(models.file("Empty")): model has no versions (expected 1.yaml, 2.yaml, …)"),
                error("\(models.file("Nothing")): model has no versions (expected 1.yaml, 2.yaml, …)"),
            ])
        let nothing = ModelLoader.load(path: models.file("Nothing/Here"))
        #expect(
            nothing.diagnostics == [
                error(
                    """
                    \(models.file("Nothing/Here")): no models found (expected \
                    \(models.file("Nothing/Here"))/<Model>/1.yaml)
                    """
                )
            ])
        #expect(nothing.models.isEmpty)
    }

    @Test func nonexistentPath() throws {
        let result = ModelLoader.load(path: "/nonexistent/Models")
        #expect(result.diagnostics == [error("/nonexistent/Models: no such file or folder")])
        #expect(result.models.isEmpty)
        #expect(result.hasErrors)
        #expect(throws: DiagnosticsError.self) { try result.compiledModels() }
    }

    @Test func yamlSyntaxErrorIsADiagnosticAtItsPosition() throws {
        let models = try folder([
            "Alpha/1.yaml": "model: Alpha\nversion: 1\nentities: [unclosed\n", "Alpha/2.yaml": version("Alpha", 2),
        ])
        defer { models.remove() }
        let result = ModelLoader.load(path: models.file("Alpha"))
        #expect(
            result.diagnostics.map(\.description) == [
                """
                \(models.file("Alpha/1.yaml")):4:1: error: invalid YAML: did not find expected ',' or ']' \
                (while parsing a flow sequence starting at line 3, column 11)
                """
            ])
        #expect(result.models.first?.versions.map(\.version) == [2])
        #expect(result.models.first?.compiled == nil)
    }

    // MARK: - Order and one-model loading

    @Test func diagnosticsAreInFileThenPositionOrderWithFolderProblemsFirst() throws {
        let models = try folder([
            "Alpha/10.yaml": version("Alpha", 10, entity: "bad"),
            "Alpha/2.yaml":
                "model: Alpha\nversion: 2\nentities: { B: { parent: Xyz }, A: { attributes: { x: integr } } }\n",
            "Alpha/1.yaml": version("Alpha", 1),
        ])
        defer { models.remove() }
        let result = ModelLoader.load(path: models.file("Alpha"))
        let two = models.file("Alpha/2.yaml"), ten = models.file("Alpha/10.yaml")
        #expect(
            result.diagnostics == [
                error("\(models.file("Alpha")): missing versions 3–9 (versions are numbered 1, 2, 3, … without gaps)"),
                error("entity 'B': unknown parent entity 'Xyz'", at: SourceLocation(file: two, line: 3, column: 13)),
                error(
                    "attribute 'A.x': unknown type 'integr'", at: SourceLocation(file: two, line: 3, column: 55),
                    hint: "did you mean 'integer16'?"),
                error(
                    """
                    entity 'bad': not a valid entity name (ASCII letters, digits and '_', starting with an uppercase \
                    letter)
                    """,
                    at: SourceLocation(file: ten, line: 4, column: 3)),
            ])
    }

    @Test func loadModelNamesTheModelWhenThereAreSeveral() throws {
        let models = try folder(["Alpha/1.yaml": version("Alpha", 1), "Beta/1.yaml": version("Beta", 1)])
        defer { models.remove() }
        #expect(try ModelLoader.loadModel(path: models.path, named: "Beta").name == "Beta")
        let unnamed = #expect(throws: DiagnosticsError.self) { try ModelLoader.loadModel(path: models.path) }
        #expect(unnamed?.description == "error: \(models.path): 2 models found (Alpha, Beta); name one with --model")
        let unknown = #expect(throws: DiagnosticsError.self) {
            try ModelLoader.loadModel(path: models.path, named: "Gamma")
        }
        #expect(
            unknown?.diagnostics == [
                Diagnostic(.error, "\(models.path): no model named 'Gamma' (found: Alpha, Beta)", at: nil)
            ])
    }

    @Test func versionNumbersOfFileNames() {
        #expect(ModelLoader.versionNumber(ofFile: "Models/A/12.yaml") == 12)
        #expect(ModelLoader.versionNumber(ofFile: "3.yml") == 3)
        #expect(ModelLoader.versionNumber(ofFile: "007.yaml") == nil)
        #expect(ModelLoader.versionNumber(ofFile: "0.yaml") == nil)
        #expect(ModelLoader.versionNumber(ofFile: "-1.yaml") == nil)
        #expect(ModelLoader.versionNumber(ofFile: "1.json") == nil)
        #expect(ModelLoader.versionNumber(ofFile: "١.yaml") == nil)
        #expect(ModelLoader.versionNumber(ofFile: "9223372036854775807.yaml") == Int.max)
        #expect(ModelLoader.fileVersion("9223372036854775808.yaml") == .tooLarge("9223372036854775808"))
        #expect(ModelLoader.fileVersion("١.yaml") == .notAVersion)
    }

    // MARK: - Rendering

    @Test func rendersTheSourceLineAndACaret() throws {
        let models = try folder([
            "Contacts/1.yaml": """
            model: Contacts
            version: 1
            entities:
              Person:
                attributes:
                  name: string
                  age: integr16

            """
        ])
        defer { models.remove() }
        let result = ModelLoader.load(path: models.file("Contacts"))
        let file = models.file("Contacts/1.yaml")
        #expect(
            DiagnosticRenderer(sources: result.sources).render(result.diagnostics) == """
                \(file):7:12: error: attribute 'Person.age': unknown type 'integr16'
                          age: integr16
                               ^
                  hint: did you mean 'integer16'?
                """)
    }

    @Test func rendersWithoutExcerptWhenThereIsNoSourceOrLocation() {
        let renderer = DiagnosticRenderer()
        let located = Diagnostic(
            .warning, "relationship 'A.b': has no inverse", at: SourceLocation(file: "x.yaml", line: 2, column: 3))
        #expect(renderer.render(located) == "x.yaml:2:3: warning: relationship 'A.b': has no inverse")
        let folderProblem = Diagnostic(.error, "Models/A: missing version 2", at: nil, hint: "add it")
        #expect(
            renderer.render([located, folderProblem]) == """
                x.yaml:2:3: warning: relationship 'A.b': has no inverse
                error: Models/A: missing version 2
                  hint: add it
                """)
    }

    @Test func rendersEveryDiagnosticOfAFileFromOneLineIndex() {
        // Lines are found once per file, not from the file's start per diagnostic
        // (10,000 warnings of a large file took minutes); CR LF ends a line as LF does.
        let renderer = DiagnosticRenderer(sources: ["x.yaml": "a: 1\r\nb: 2\r\n  c: 3\n", "y.yaml": "only"])
        let diagnostics = [
            Diagnostic(.warning, "w", at: SourceLocation(file: "x.yaml", line: 3, column: 3)),
            Diagnostic(.error, "e", at: SourceLocation(file: "y.yaml", line: 1, column: 2)),
            Diagnostic(.error, "f", at: SourceLocation(file: "x.yaml", line: 1, column: 4)),
            Diagnostic(.error, "g", at: SourceLocation(file: "x.yaml", line: 4, column: 1)),
        ]
        #expect(
            renderer.render(diagnostics) == """
                x.yaml:3:3: warning: w
                      c: 3
                      ^
                y.yaml:1:2: error: e
                    only
                     ^
                x.yaml:1:4: error: f
                    a: 1
                       ^
                x.yaml:4:1: error: g
                    \("")
                    ^
                """)
    }

    @Test func renderingKeepsTabsAndReplacesControlCharacters() {
        let renderer = DiagnosticRenderer(sources: ["x.yaml": "a: 1\n\tb:\u{1}c\r\nlast"])
        let diagnostic = Diagnostic(.error, "m", at: SourceLocation(file: "x.yaml", line: 2, column: 5))
        #expect(renderer.render(diagnostic) == "x.yaml:2:5: error: m\n    \tb:?c\n    \t   ^")
        let beyond = Diagnostic(.error, "m", at: SourceLocation(file: "x.yaml", line: 9, column: 1))
        #expect(renderer.render(beyond) == "x.yaml:9:1: error: m")
    }
}
