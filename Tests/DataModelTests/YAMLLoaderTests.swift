import Foundation
import Testing

@testable import DataModel

/// Swift Testing has a `SourceLocation` too.
private typealias SourceLocation = DataModel.SourceLocation

@Suite struct YAMLLoaderTests {
    // MARK: - Helpers

    private static let file = "test.yaml"

    private func load(_ text: String) throws(YAMLError) -> YAMLNode {
        try YAMLLoader.load(bytes: Array(text.utf8), file: Self.file)
    }

    private func failure(_ bytes: [UInt8]) -> YAMLError? {
        do {
            _ = try YAMLLoader.load(bytes: bytes, file: Self.file)
            return nil
        } catch {
            return error
        }
    }

    private func failure(_ text: String) -> YAMLError? { failure(Array(text.utf8)) }

    private func at(_ line: Int, _ column: Int) -> SourceLocation {
        SourceLocation(file: Self.file, line: line, column: column)
    }

    private func scalar(
        _ text: String, _ style: YAMLNode.ScalarStyle, _ line: Int, _ column: Int,
        tag: String? = nil
    ) -> YAMLNode {
        YAMLNode(.scalar(text, style), at: at(line, column), tag: tag)
    }

    private func key(_ text: String, _ line: Int, _ column: Int) -> YAMLNode { scalar(text, line, column) }

    private func mapping(_ line: Int, _ column: Int, _ pairs: [(YAMLNode, YAMLNode)], tag: String? = nil) -> YAMLNode {
        YAMLNode(.mapping(pairs.map { YAMLNode.Pair(key: $0.0, value: $0.1) }), at: at(line, column), tag: tag)
    }

    private func sequence(_ line: Int, _ column: Int, _ items: [YAMLNode], tag: String? = nil) -> YAMLNode {
        YAMLNode(.sequence(items), at: at(line, column), tag: tag)
    }

    private func scalar(_ text: String, _ line: Int, _ column: Int) -> YAMLNode {
        YAMLNode(.scalar(text, .plain), at: at(line, column))
    }

    // MARK: - Reading

    @Test func everyScalarStyle() throws {
        let root = try load(
            """
            plain: hello world
            single: 'it''s'
            double: "tab\\tnew\\nline \\u00e9 \\"q\\""
            literal: |
              line 1
              line 2
            folded: >
              folded
              text
            empty:

            """)
        #expect(
            root
                == mapping(
                    1, 1,
                    [
                        (key("plain", 1, 1), scalar("hello world", .plain, 1, 8)),
                        (key("single", 2, 1), scalar("it's", .singleQuoted, 2, 9)),
                        (key("double", 3, 1), scalar("tab\tnew\nline é \"q\"", .doubleQuoted, 3, 9)),
                        (key("literal", 4, 1), scalar("line 1\nline 2\n", .literal, 4, 10)),
                        (key("folded", 7, 1), scalar("folded text\n", .folded, 7, 9)),
                        (key("empty", 10, 1), scalar("", .plain, 10, 7)),
                    ]))
        #expect(root.mappingPairs?.last?.value.isNull == true)
    }

    @Test func blockAndFlowCollectionsNest() throws {
        let root = try load(
            """
            # A model.
            entities:
              - name: Person   # trailing comment
                tags: [a, 'b', {c: d}]
              - {name: Note, tags: []}
            empty: {}

            """)
        #expect(
            root
                == mapping(
                    2, 1,
                    [
                        (
                            key("entities", 2, 1),
                            sequence(
                                3, 3,
                                [
                                    mapping(
                                        3, 5,
                                        [
                                            (key("name", 3, 5), scalar("Person", 3, 11)),
                                            (
                                                key("tags", 4, 5),
                                                sequence(
                                                    4, 11,
                                                    [
                                                        scalar("a", 4, 12),
                                                        scalar("b", .singleQuoted, 4, 15),
                                                        mapping(4, 20, [(key("c", 4, 21), scalar("d", 4, 24))]),
                                                    ])
                                            ),
                                        ]),
                                    mapping(
                                        5, 5,
                                        [
                                            (key("name", 5, 6), scalar("Note", 5, 12)),
                                            (key("tags", 5, 18), sequence(5, 24, [])),
                                        ]),
                                ])
                        ),
                        (key("empty", 6, 1), mapping(6, 8, [])),
                    ]))
    }

    @Test func columnsCountUnicodeScalarsAfterNonASCIIText() throws {
        let root = try load("ключ: значение\n😀: é\nnamé: [x, \"y\"]\n")
        #expect(
            root
                == mapping(
                    1, 1,
                    [
                        (key("ключ", 1, 1), scalar("значение", 1, 7)),
                        (key("😀", 2, 1), scalar("é", 2, 4)),
                        (key("namé", 3, 1), sequence(3, 7, [scalar("x", 3, 8), scalar("y", .doubleQuoted, 3, 11)])),
                    ]))
    }

    @Test func lineBreaksCRLFAndCRCountOnce() throws {
        let root = try load("a: 1\r\nb: 2\rc: 3\n")
        #expect(
            root
                == mapping(
                    1, 1,
                    [
                        (key("a", 1, 1), scalar("1", 1, 4)),
                        (key("b", 2, 1), scalar("2", 2, 4)),
                        (key("c", 3, 1), scalar("3", 3, 4)),
                    ]))
    }

    @Test func utf8ByteOrderMarkIsSkipped() throws {
        let root = try YAMLLoader.load(bytes: [0xEF, 0xBB, 0xBF] + Array("a: 1\n".utf8), file: Self.file)
        #expect(root == mapping(1, 1, [(key("a", 1, 1), scalar("1", 1, 4))]))
    }

    @Test func aliasesBecomeCopiesWithTheAnchorsLocation() throws {
        let root = try load(
            """
            base: &b {x: 1}
            list: [&s one, *s, *b]
            copy: *b
            <<: *b

            """)
        let base = mapping(1, 7, [(key("x", 1, 11), scalar("1", 1, 14))])
        #expect(
            root
                == mapping(
                    1, 1,
                    [
                        (key("base", 1, 1), base),
                        (key("list", 2, 1), sequence(2, 7, [scalar("one", 2, 8), scalar("one", 2, 8), base])),
                        (key("copy", 3, 1), base),
                        (key("<<", 4, 1), base),
                    ]))
    }

    @Test func anAliasRefersToTheLatestAnchorOfItsName() throws {
        let root = try load("a: &x 1\nb: &x [&x 2, *x]\nc: *x\n")
        #expect(
            root
                == mapping(
                    1, 1,
                    [
                        (key("a", 1, 1), scalar("1", 1, 4)),
                        (key("b", 2, 1), sequence(2, 4, [scalar("2", 2, 8), scalar("2", 2, 8)])),
                        (key("c", 3, 1), scalar("2", 2, 8)),
                    ]))
    }

    @Test func explicitTagsAreKeptAsLibYAMLResolvesThem() throws {
        let root = try load(
            """
            %TAG !e! tag:example.com,2024:
            ---
            a: !!str 1
            b: !custom x
            c: ! y
            d: !e!thing z
            e: !!map {k: v}
            f: !!seq [1]
            g: plain

            """)
        #expect(
            root
                == mapping(
                    3, 1,
                    [
                        (key("a", 3, 1), scalar("1", .plain, 3, 4, tag: "tag:yaml.org,2002:str")),
                        (key("b", 4, 1), scalar("x", .plain, 4, 4, tag: "!custom")),
                        (key("c", 5, 1), scalar("y", .plain, 5, 4, tag: "!")),
                        (key("d", 6, 1), scalar("z", .plain, 6, 4, tag: "tag:example.com,2024:thing")),
                        (
                            key("e", 7, 1),
                            mapping(7, 4, [(key("k", 7, 11), scalar("v", 7, 14))], tag: "tag:yaml.org,2002:map")
                        ),
                        (key("f", 8, 1), sequence(8, 4, [scalar("1", 8, 11)], tag: "tag:yaml.org,2002:seq")),
                        (key("g", 9, 1), scalar("plain", 9, 4)),
                    ]))
    }

    @Test func explicitStartAndEndMarkersAreOneDocument() throws {
        let root = try load("---\na: 1\n...\n# done\n")
        #expect(root == mapping(2, 1, [(key("a", 2, 1), scalar("1", 2, 4))]))
    }

    @Test func loadsAFileByPathAndNamesItInLocations() throws {
        let path = NSTemporaryDirectory() + "yaml-loader-\(UUID().uuidString).yaml"
        try Data("name: x\n".utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let root = try YAMLLoader.load(contentsOf: path)
        #expect(root.mappingPairs?.first?.value.location == SourceLocation(file: path, line: 1, column: 7))
    }

    // MARK: - Document shape

    @Test func rejectsASecondDocumentAtItsStart() {
        let error = failure("a: 1\n---\nb: 2\n")
        #expect(error?.kind == .multipleDocuments)
        #expect(
            error?.description
                == """
                test.yaml:2:1: error: the file must contain a single YAML document, but a second document starts here
                """
        )
    }

    @Test func rejectsARootThatIsNotAMapping() {
        let sequence = failure("- a\n- b\n")
        #expect(sequence?.kind == .notAMapping)
        #expect(sequence?.description == "test.yaml:1:1: error: the document root must be a mapping, found a sequence")
        #expect(
            failure("\n  hello\n")?.description
                == "test.yaml:2:3: error: the document root must be a mapping, found a scalar")
        #expect(failure("~\n")?.message == "the document root must be a mapping, found null")
    }

    @Test(arguments: ["", "# only a comment\n\n# and another\n", "---\n", "--- # nothing\n...\n"])
    func rejectsAnEmptyDocument(text: String) {
        let error = failure(text)
        #expect(error?.kind == .emptyDocument)
        #expect(error?.location == nil)
        #expect(error?.description == "test.yaml: error: the file contains no YAML document; expected a mapping")
    }

    @Test func rejectsADuplicateKeyAtTheSecondOne() {
        let error = failure("name: a\ncontact:\n    email: x\n    phone: y\n    email: z\n")
        #expect(error?.kind == .duplicateKey)
        #expect(error?.location == at(5, 5))
        #expect(error?.message == "duplicate key 'email' (first defined at line 3, column 5)")
        #expect(error?.description == "test.yaml:5:5: error: duplicate key 'email' (first defined at line 3, column 5)")
    }

    @Test func duplicateKeysCompareTextInFlowMappingsAndAliases() {
        #expect(
            failure("a: {b: 1, 'b': 2}\n")?.description
                == "test.yaml:1:11: error: duplicate key 'b' (first defined at line 1, column 5)")
        #expect(
            failure("&k a: 1\nb: 2\n*k : 3\n")?.description
                == "test.yaml:3:1: error: duplicate key 'a' (first defined at line 1, column 1)")
    }

    @Test func rejectsNonScalarKeys() {
        let flow = failure("[a, b]: 1\n")
        #expect(flow?.kind == .nonScalarKey)
        #expect(flow?.description == "test.yaml:1:1: error: mapping keys must be scalars, found a sequence")
        #expect(
            failure("a: 1\n? {b: c}\n: 2\n")?.description
                == "test.yaml:2:3: error: mapping keys must be scalars, found a mapping")
        #expect(
            failure("a: &m {x: 1}\n*m : 2\n")?.description
                == "test.yaml:2:1: error: mapping keys must be scalars, found a mapping")
    }

    // MARK: - Encoding and characters

    @Test func rejectsInvalidUTF8AtTheFirstBadByte() {
        let error = failure(Array("a: é\nb: x".utf8) + [0xFF] + Array("\n".utf8))
        #expect(error?.kind == .notUTF8)
        #expect(error?.description == "test.yaml:2:5: error: the file is not valid UTF-8 (invalid byte 0xFF)")
    }

    @Test(
        arguments: [
            ([0xC3, 0x28], "0xC3"),  // a lead byte without its continuation
            ([0xC0, 0x80], "0xC0"),  // an overlong NUL
            ([0xED, 0xA0, 0x80], "0xED"),  // a UTF-16 surrogate
            ([0xF4, 0x90, 0x80, 0x80], "0xF4"),  // above U+10FFFF
            ([0x80], "0x80"),  // a stray continuation byte
        ] as [([UInt8], String)])
    func rejectsIllFormedUTF8Sequences(bytes: [UInt8], byte: String) {
        let error = failure(Array("key: ".utf8) + bytes)
        #expect(error?.kind == .notUTF8)
        #expect(error?.description == "test.yaml:1:6: error: the file is not valid UTF-8 (invalid byte \(byte))")
    }

    @Test func rejectsUTF16AndUTF32ByteOrderMarks() {
        #expect(
            failure([0xFF, 0xFE, 0x61, 0x00])?.description
                == """
                test.yaml:1:1: error: the file is not valid UTF-8 (it starts with a UTF-16 little-endian byte order \
                mark)
                """
        )
        #expect(
            failure([0xFE, 0xFF, 0x00, 0x61])?.message
                == "the file is not valid UTF-8 (it starts with a UTF-16 big-endian byte order mark)")
        #expect(
            failure([0x00, 0x00, 0xFE, 0xFF])?.message
                == "the file is not valid UTF-8 (it starts with a UTF-32 big-endian byte order mark)")
        #expect(failure([0xFF, 0xFE, 0x00, 0x00])?.kind == .notUTF8)
    }

    @Test func rejectsNULBytesAndControlCharacters() {
        let nul = failure("a: 1\nb: x\u{0}y\n")
        #expect(nul?.kind == .syntax)
        #expect(
            nul?.description
                == """
                test.yaml:2:5: error: the file contains a NUL byte, which YAML does not allow (is it a binary file?)
                """
        )
        #expect(
            failure("a: \"bell\u{7}\"\n")?.description
                == "test.yaml:1:9: error: the file contains the control character U+0007, which YAML does not allow")
    }

    @Test func rejectsBinaryGarbage() {
        // The start of a PNG file: its signature is not UTF-8.
        let error = failure([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00])
        #expect(error?.kind == .notUTF8)
        #expect(error?.description == "test.yaml:1:1: error: the file is not valid UTF-8 (invalid byte 0x89)")
        // ASCII bytes and NULs that are valid UTF-8 still fail at the first NUL.
        #expect(
            failure([0x61, 0x3A, 0x20, 0x00, 0x01, 0x02])?.description
                == """
                test.yaml:1:4: error: the file contains a NUL byte, which YAML does not allow (is it a binary file?)
                """
        )
    }

    // MARK: - Syntax errors

    @Test func rejectsTabIndentation() {
        let error = failure("entity:\n\tname: Person\n")
        #expect(error?.kind == .syntax)
        #expect(error?.description == "test.yaml:2:1: error: tabs are not allowed for indentation; use spaces")
        #expect(
            failure("a:\n  \tb: 1\n")?.description
                == "test.yaml:2:3: error: tabs are not allowed for indentation; use spaces")
        #expect(
            failure("a: |\n\tx\n")?.description
                == "test.yaml:2:1: error: tabs are not allowed for indentation; use spaces")
        #expect(
            failure("- \tx\n")?.description
                == "test.yaml:1:3: error: a tab cannot separate values here; use spaces")
    }

    @Test func tabsInsideValuesAndAfterColonsAreFine() throws {
        let root = try load("a:\tb\nc: \"x\ty\"\n")
        #expect(
            root
                == mapping(
                    1, 1,
                    [
                        (key("a", 1, 1), scalar("b", 1, 4)),
                        (key("c", 2, 1), scalar("x\ty", .doubleQuoted, 2, 4)),
                    ]))
    }

    @Test func rejectsUnclosedQuotes() {
        let double = failure("name: \"Person\nother: 1\n")
        #expect(double?.kind == .syntax)
        #expect(double?.description == "test.yaml:3:1: error: unclosed quoted string starting at line 1, column 7")
        #expect(
            failure("a: 'x")?.description
                == "test.yaml:1:6: error: unclosed quoted string starting at line 1, column 4")
        #expect(
            failure("a: \"x\n---\nb: 1\n")?.description
                == "test.yaml:2:1: error: unclosed quoted string starting at line 1, column 4")
    }

    @Test func explainsOtherSyntaxErrorsWithLibYAMLsContext() {
        #expect(
            failure("a: b: c\n")?.description
                == "test.yaml:1:5: error: invalid YAML: mapping values are not allowed in this context")
        #expect(
            failure("a: [1, 2\n")?.description
                == """
                test.yaml:2:1: error: invalid YAML: did not find expected ',' or ']' (while parsing a flow sequence \
                starting at line 1, column 4)
                """
        )
        #expect(
            failure("{a: 1")?.description
                == """
                test.yaml:1:6: error: invalid YAML: did not find expected ',' or '}' (while parsing a flow mapping \
                starting at line 1, column 1)
                """
        )
        #expect(
            failure("a: @home\n")?.description
                == "test.yaml:1:4: error: a plain value cannot start with '@'; put the value in quotes")
    }

    @Test func rejectsAnAliasToAnUnknownAnchor() {
        let error = failure("a: 1\nb: *nowhere\n")
        #expect(error?.kind == .syntax)
        #expect(
            error?.description
                == "test.yaml:2:4: error: unknown alias '*nowhere': no anchor '&nowhere' is defined before it")
        // An anchor defined later does not count.
        #expect(failure("a: *x\nb: &x 1\n")?.location == at(1, 4))
    }

    @Test func rejectsRecursiveAliasesAndOtherYAMLVersions() {
        let recursive = failure("a: &x [1, *x]\n")
        #expect(recursive?.kind == .unsupported)
        #expect(
            recursive?.description
                == """
                test.yaml:1:11: error: alias '*x' refers to a node that contains it; recursive aliases are not supported
                """
        )
        #expect(failure("a: &x 1\nb: &x [*x]\n")?.kind == .unsupported)
        let version = failure("%YAML 2.0\n---\na: 1\n")
        #expect(version?.kind == .unsupported)
        #expect(
            version?.description
                == "test.yaml:1:1: error: unsupported YAML version: only %YAML 1.1 and 1.2 documents can be read")
    }

    // MARK: - Hostile input

    @Test func refusesBytesOverTheSizeLimitWithoutParsing() {
        let error = failure([UInt8](repeating: 0x5B, count: YAMLLoader.maximumFileSize + 1))
        #expect(error?.kind == .tooLarge)
        #expect(
            error?.description
                == "test.yaml: error: the file is too large (16777217 bytes; the limit is 16777216 bytes)")
    }

    @Test func readsAFileOfExactlyTheSizeLimit() throws {
        var bytes = Array("a: 1\n#".utf8)
        bytes += [UInt8](repeating: 0x78, count: YAMLLoader.maximumFileSize - bytes.count)
        let root = try YAMLLoader.load(bytes: bytes, file: Self.file)
        #expect(root == mapping(1, 1, [(key("a", 1, 1), scalar("1", 1, 4))]))
    }

    @Test func refusesA50MBFileFromItsSizeAlone() throws {
        let path = NSTemporaryDirectory() + "yaml-loader-\(UUID().uuidString).yaml"
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.truncate(atOffset: 50_000_000)  // sparse: nothing is written
        try handle.close()
        let start = ContinuousClock.now
        do {
            _ = try YAMLLoader.load(contentsOf: path)
            Issue.record("a 50 MB file loaded")
        } catch {
            #expect(error.kind == .tooLarge)
            #expect(
                error.description
                    == "\(path): error: the file is too large (50000000 bytes; the limit is 16777216 bytes)")
        }
        #expect(ContinuousClock.now - start < .seconds(1))
    }

    @Test func reportsUnreadableFiles() {
        do {
            _ = try YAMLLoader.load(contentsOf: "/nonexistent/model.yaml")
            Issue.record("loaded a missing file")
        } catch {
            #expect(error.kind == .unreadable)
            #expect(
                error.description == "/nonexistent/model.yaml: error: cannot read the file: No such file or directory")
        }
        let directory = NSTemporaryDirectory()
        #expect(throws: YAMLError.self) { try YAMLLoader.load(contentsOf: directory) }
        do {
            _ = try YAMLLoader.load(contentsOf: directory)
        } catch {
            #expect(error.message == "cannot read the file: it is a directory")
        }
    }

    @Test func refusesTenThousandLevelsOfNestingFast() {
        let start = ContinuousClock.now
        let error = failure("a: " + String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000))
        #expect(ContinuousClock.now - start < .milliseconds(500))
        #expect(error?.kind == .tooDeep)
        // The root mapping is level 1, so the 256th '[' (column 3 + 256) is level 257.
        #expect(error?.description == "test.yaml:1:259: error: collections are nested more than 256 levels deep")
        #expect(failure(String(repeating: "[", count: 10_000))?.location == at(1, 257))
    }

    @Test func acceptsNestingUpToTheLimit() throws {
        let root = try load("a: " + String(repeating: "[", count: 255) + String(repeating: "]", count: 255))
        var node = try #require(root.mappingPairs?.first?.value)
        var depth = 1
        while let first = node.sequenceItems?.first {
            node = first
            depth += 1
        }
        #expect(depth == 255)
        #expect(failure("a: " + String(repeating: "{a: ", count: 256))?.kind == .tooDeep)
    }

    @Test func refusesBillionLaughsFast() {
        let bomb = """
            a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]
            b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]
            c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]
            d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]
            e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]
            f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]
            g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]
            h: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g]
            i: &i [*h, *h, *h, *h, *h, *h, *h, *h, *h]

            """
        let start = ContinuousClock.now
        let error = failure(bomb)
        #expect(ContinuousClock.now - start < .milliseconds(500))
        #expect(error?.kind == .aliasExpansion)
        // 672,612 nodes precede g's first '*f', which would copy 597,871 more.
        #expect(
            error?.description
                == "test.yaml:7:8: error: alias expansion exceeds 1000000 nodes (billion laughs?)")
    }

    // MARK: - Error text

    @Test func describesErrorsLikeACompiler() {
        let located = YAMLError(.syntax, "bad", file: "m.yaml", at: SourceLocation(file: "m.yaml", line: 2, column: 7))
        #expect(located.description == "m.yaml:2:7: error: bad")
        #expect(YAMLError(.unreadable, "gone", file: "m.yaml", at: nil).description == "m.yaml: error: gone")
    }
}
