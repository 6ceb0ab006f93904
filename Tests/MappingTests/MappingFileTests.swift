import DataModel
import TestSupport
import Testing

@testable import Mapping

/// Swift Testing has a `SourceLocation` too.
private typealias SourceLocation = DataModel.SourceLocation

/// `MappingFile` and `MappingFiles`: reading `Migrations/<Model>/<A>-to-<B>.yaml`,
/// with every problem reported at file:line:column.
@Suite struct MappingFileTests {
    /// Parses `text` written as `Migrations/Shop/<name>`; returns the parse result and the path.
    static func parse(_ text: String, name: String = "1-to-2.yaml") throws -> (
        file: MappingFile?, diagnostics: [Diagnostic], path: String, source: String?
    ) {
        let folder = try TemporaryDirectory(prefix: "mapping-file")
        defer { folder.remove() }
        let path = try folder.write("Migrations/Shop/\(name)", text)
        let (file, diagnostics, source) = MappingFile.parse(path: path)
        return (file, diagnostics, path, source)
    }

    @Test(arguments: [
        ("1-to-2.yaml", 1, 2), ("3-to-4.yml", 3, 4), ("/a/b/Migrations/Shop/12-to-13.yaml", 12, 13),
        ("2-to-1.yaml", 2, 1),
    ])
    func versionsFromTheFileName(path: String, a: Int, b: Int) {
        let versions = MappingFile.versions(ofFile: path)
        #expect(versions?.0 == a && versions?.1 == b)
    }

    @Test(arguments: ["notes.yaml", "1-2.yaml", "0-to-1.yaml", "a-to-b.yaml", "1-to-2-to-3.yaml", "1-to-.yaml"])
    func fileNamesThatAreNotMappingFiles(path: String) {
        #expect(MappingFile.versions(ofFile: path) == nil)
    }

    /// `mappingName:` names the entity's own mapping as Xcode may (spaces included); empty,
    /// padded or with a control character it is refused at its line.
    @Test func aMappingNameIsRead() throws {
        let named = try Self.parse("entities:\n  Person:\n    mappingName: \"People And More\"\n")
        #expect(named.diagnostics == [] && named.file?.entities.first?.mappingName == "People And More")
        for bad in ["\"\"", "\" People\"", "\"A\\tB\""] {
            let result = try Self.parse("entities:\n  Person:\n    mappingName: \(bad)\n")
            #expect(result.file == nil, "\(bad)")
            #expect(result.diagnostics.first?.message.hasPrefix("entity 'Person': mappingName") == true, "\(bad)")
        }
    }

    /// A policy names a Swift class and the policy's Swift file: a name that is no type
    /// name (a path, a space, a keyword, a leading digit) is refused at its line, so that
    /// no export or stub writes outside its folder or code that does not compile.
    @Test(arguments: ["../../Evil", "Foo/Bar", "Foo Bar", "class", "1abc", "X\"Y", "Café"])
    func aPolicyThatIsNoTypeNameIsRefused(name: String) throws {
        let quoted =
            "\"" + name.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        let result = try Self.parse("entities:\n  Person:\n    policy: \(quoted)\n")
        #expect(result.file == nil)
        #expect(result.diagnostics.map(\.message) == ["entity 'Person': policy '\(name)' is not a Swift type name"])
        #expect(result.diagnostics.first?.location?.line == 3)
        #expect(MappingFile.isTypeName("SplitFullName") && MappingFile.isTypeName("_P2"))
    }

    @Test func everyFormOfOverride() throws {
        let text = """
            entities:
              Person:
                policy: SplitFullName
                source: Human
                properties:
                  firstName: policy
                  nickname: $source.handle
                  score: { default: 10 }
                  motto: { default: ~ }
              Tag: {}
            """
        let (file, diagnostics, path, source) = try Self.parse(text)
        #expect(source == text)
        #expect(diagnostics == [])
        let parsed = try #require(file)
        #expect(parsed.path == path)
        #expect((parsed.sourceVersion, parsed.destinationVersion) == (1, 2))
        #expect(parsed.digest == VersionHasher.sha256Hex(Array(text.utf8)))
        #expect(parsed.digest.count == 64)
        #expect(
            parsed.entities == [
                MappingFile.EntityOverride(
                    name: "Person", policy: "SplitFullName", source: "Human",
                    properties: [
                        "firstName": .policy, "nickname": .copy(from: "handle"), "score": .value(.string("10")),
                        "motto": .value(nil),
                    ],
                    location: SourceLocation(file: path, line: 2, column: 3),
                    propertyLocations: [
                        "firstName": SourceLocation(file: path, line: 6, column: 7),
                        "nickname": SourceLocation(file: path, line: 7, column: 7),
                        "score": SourceLocation(file: path, line: 8, column: 7),
                        "motto": SourceLocation(file: path, line: 9, column: 7),
                    ]),
                MappingFile.EntityOverride(
                    name: "Tag", policy: nil, source: nil, properties: [:],
                    location: SourceLocation(file: path, line: 10, column: 3), propertyLocations: [:]),
            ])
    }

    @Test func unknownKeysAndBadOverridesAreReportedWithTheirPosition() throws {
        let (file, diagnostics, path, _) = try Self.parse(
            """
            entities:
              Person:
                polcy: SplitFullName
                properties:
                  firstName: $src.fullName
                  nickname: { valeu: x }
                  age: { }
                  score: policy
            """)
        #expect(file == nil)
        #expect(
            diagnostics == [
                Diagnostic(
                    .error, "entity 'Person': unknown key 'polcy'", at: SourceLocation(file: path, line: 3, column: 5),
                    hint: "did you mean 'policy'?"),
                Diagnostic(
                    .error,
                    """
                    property 'Person.firstName': expected `policy`, `$source.<name>`, `{ default: value }` or `{ \
                    value: "expression" }`, found '$src.fullName'
                    """,
                    at: SourceLocation(file: path, line: 5, column: 18)),
                Diagnostic(
                    .error, "property 'Person.nickname': unknown key 'valeu'",
                    at: SourceLocation(file: path, line: 6, column: 19),
                    hint: "expected one of: default, value, onFailure"),
                Diagnostic(
                    .error, "property 'Person.nickname': expected `{ default: value }` or `{ value: \"expression\" }`",
                    at: SourceLocation(file: path, line: 6, column: 17)),
                Diagnostic(
                    .error, "property 'Person.age': expected `{ default: value }` or `{ value: \"expression\" }`",
                    at: SourceLocation(file: path, line: 7, column: 12)),
            ])
        #expect(diagnostics[0].description == "\(path):3:5: error: entity 'Person': unknown key 'polcy'")
    }

    @Test func misspeltTopLevelKey() throws {
        let (file, diagnostics, path, _) = try Self.parse("entites:\n  Person:\n    policy: X\n")
        #expect(file == nil)
        #expect(
            diagnostics == [
                Diagnostic(
                    .error, "mapping file: unknown key 'entites'", at: SourceLocation(file: path, line: 1, column: 1),
                    hint: "did you mean 'entities'?"),
                Diagnostic(
                    .error, "mapping file: missing required key 'entities'",
                    at: SourceLocation(file: path, line: 1, column: 1)),
            ])
    }

    @Test func emptyPolicyName() throws {
        let (file, diagnostics, path, _) = try Self.parse("entities:\n  Person:\n    policy: \"\"\n")
        #expect(file == nil)
        #expect(
            diagnostics == [
                Diagnostic(
                    .error, "entity 'Person': policy: must not be empty",
                    at: SourceLocation(file: path, line: 3, column: 13))
            ])
    }

    @Test func invalidYAMLIsReportedWithItsPosition() throws {
        let (file, diagnostics, path, _) = try Self.parse("entities:\n  Person: [\n")
        #expect(file == nil)
        #expect(diagnostics.count == 1)
        #expect(diagnostics.first?.location?.file == path)
        #expect(diagnostics.first?.severity == .error)
    }

    @Test func badFileName() throws {
        let (file, diagnostics, path, source) = try Self.parse("entities: {}\n", name: "notes.yaml")
        #expect(file == nil)
        #expect(source == nil)
        #expect(
            diagnostics == [
                Diagnostic(.error, "\(path): a mapping file is named <A>-to-<B>.yaml (e.g. 1-to-2.yaml)", at: nil)
            ])
    }

    /// Two files for one pair of versions are refused, naming both: using either
    /// would silently ignore the other (a hop the user mapped, inferred instead).
    @Test func twoFilesForTheSameVersionsAreRefused() throws {
        let folder = try TemporaryDirectory(prefix: "mapping-files")
        defer { folder.remove() }
        try folder.write("Shop/02-to-3.yaml", "entities:\n  Person:\n    policy: A\n")
        try folder.write("Shop/2-to-3.yaml", "entities: {}\n")
        try folder.write("Shop/2-to-3.yml", "entities: {}\n")
        let files = MappingFiles.load(folder: folder.path, model: "Shop")
        #expect(files.files.map(\.path) == [folder.file("Shop/02-to-3.yaml")])
        #expect(
            files.diagnostics.map(\.message)
                == ["2-to-3.yaml", "2-to-3.yml"].map {
                    """
                    \(folder.file("Shop/" + $0)): maps version 2 to 3, as \(folder.file("Shop/02-to-3.yaml")) does; \
                    keep one file for these versions
                    """
                })
    }

    @Test func folderOfMappingFiles() throws {
        let folder = try TemporaryDirectory(prefix: "mapping-files")
        defer { folder.remove() }
        try folder.write("Shop/1-to-2.yaml", "entities:\n  Person:\n    policy: A\n")
        try folder.write("Shop/2-to-4.yaml", "entities: {}\n")
        try folder.write("Shop/3-to-3.yaml", "entities: {}\n")
        try folder.write("Shop/README.md", "not a mapping")
        let files = MappingFiles.load(folder: folder.path, model: "Shop")
        // A span (2-to-4) is a mapping file like a hop; a version onto itself is not.
        #expect(files.files.map(\.path) == [folder.file("Shop/1-to-2.yaml"), folder.file("Shop/2-to-4.yaml")])
        #expect(
            files.diagnostics == [
                Diagnostic(
                    .error,
                    """
                    \(folder.file("Shop/3-to-3.yaml")): a mapping file maps a version to a later one, <A>-to-<B>.yaml \
                    with B > A (a hop, e.g. 1-to-2.yaml, or a span, e.g. 1-to-5.yaml)
                    """, at: nil),
                Diagnostic(
                    .error,
                    """
                    \(folder.file("Shop/README.md")): not a mapping file: a model's mapping folder holds files named \
                    <A>-to-<B>.yaml (e.g. 1-to-2.yaml), and this one would be ignored (rename it, or move it out of \
                    \(folder.file("Shop")))
                    """, at: nil),
            ])
        #expect(files.file(from: 1, to: 2)?.entities.map(\.policy) == ["A"])
        #expect(files.file(from: 2, to: 3) == nil)
        #expect(files.spans.map(\.path) == [folder.file("Shop/2-to-4.yaml")])
        #expect(files.files(from: 2).map(\.destinationVersion) == [4])
        #expect(
            Set(files.sources.keys) == [
                folder.file("Shop/1-to-2.yaml"), folder.file("Shop/2-to-4.yaml"), folder.file("Shop/3-to-3.yaml"),
            ])
        #expect(MappingFiles.load(folder: folder.path + "/", model: "Shop").files.count == 2)
        #expect(MappingFiles.load(folder: folder.file("Missing"), model: "Shop").files == [])
    }

    /// Issue 27: no file of a model's mapping folder is ignored silently. Each one no
    /// migration could use is an error naming it: a version onto itself, backwards, a
    /// version the model lacks, a name that is not `<A>-to-<B>.yaml`. Folders (policy
    /// skeletons) and hidden files are not mapping files.
    @Test func unusableFilesAreErrorsNamingThem() throws {
        let folder = try TemporaryDirectory(prefix: "mapping-files")
        defer { folder.remove() }
        for name in [
            "1-to-2.yaml", "2-to-9.yaml", "3-to-3.yaml", "3-to-2.yaml", "6-to-7.yaml", "1-to-2.yaml.orig", "1to2.yaml",
            "notes.txt",
        ] {
            try folder.write("Shop/" + name, "entities: {}\n")
        }
        try folder.write("Shop/.DS_Store", "x")
        try folder.write("Shop/Policies/Tidy.swift", "struct Tidy {}\n")
        let files = MappingFiles.load(folder: folder.path, model: "Shop", versions: [1, 2, 3, 4, 5])
        #expect(files.files.map(\.path) == [folder.file("Shop/1-to-2.yaml")])
        let onto =
            """
            a mapping file maps a version to a later one, <A>-to-<B>.yaml with B > A (a hop, e.g. 1-to-2.yaml, or a \
            span, e.g. 1-to-5.yaml)
            """
        let notMapping =
            "not a mapping file: a model's mapping folder holds files named <A>-to-<B>.yaml (e.g. 1-to-2.yaml), "
            + "and this one would be ignored (rename it, or move it out of \(folder.file("Shop")))"
        #expect(
            files.diagnostics.map(\.message) == [
                "\(folder.file("Shop/1-to-2.yaml.orig")): \(notMapping)",
                "\(folder.file("Shop/1to2.yaml")): a mapping file is named <A>-to-<B>.yaml (e.g. 1-to-2.yaml)",
                "\(folder.file("Shop/2-to-9.yaml")): maps version 2 to 9, but model Shop has no version 9 (its "
                    + "versions: 1 to 5); "
                    + "no migration would ever use this file",
                "\(folder.file("Shop/3-to-2.yaml")): \(onto)",
                "\(folder.file("Shop/3-to-3.yaml")): \(onto)",
                "\(folder.file("Shop/6-to-7.yaml")): maps version 6 to 7, but model Shop has no version 6 (its "
                    + "versions: 1 to 5); "
                    + "no migration would ever use this file",
                "\(folder.file("Shop/notes.txt")): \(notMapping)",
            ])
        #expect(files.diagnostics.allSatisfy { $0.severity == .error && $0.location == nil })
        // Without the model's versions (the folder read on its own) only the names are checked.
        #expect(MappingFiles.load(folder: folder.path, model: "Shop").files.map(\.sourceVersion) == [1, 2, 6])
    }

    /// Issue 17, item 9: checking that a file covers one hop computed A + 1, which
    /// trapped for a file named after Int.max.
    @Test func aMappingFileNamedAfterTheLargestNumberIsAnErrorNotATrap() throws {
        let folder = try TemporaryDirectory(prefix: "mapping-files")
        defer { folder.remove() }
        try folder.write("Shop/9223372036854775807-to-1.yaml", "entities: {}\n")
        try folder.write("Shop/9223372036854775806-to-9223372036854775807.yaml", "entities: {}\n")
        let files = MappingFiles.load(folder: folder.path, model: "Shop")
        #expect(
            files.diagnostics == [
                Diagnostic(
                    .error,
                    """
                    \(folder.file("Shop/9223372036854775807-to-1.yaml")): a mapping file maps a version to a later \
                    one, <A>-to-<B>.yaml with B > A (a hop, e.g. 1-to-2.yaml, or a span, e.g. 1-to-5.yaml)
                    """, at: nil)
            ])
        #expect(files.files.map { [$0.sourceVersion, $0.destinationVersion] } == [[Int.max - 1, Int.max]])
    }
}
