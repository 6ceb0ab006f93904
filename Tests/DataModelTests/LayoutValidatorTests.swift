import TestSupport
import Testing

@testable import DataModel

/// Swift Testing has a `SourceLocation` too.
private typealias SourceLocation = DataModel.SourceLocation

/// Issue 17, item 12: models `validate` accepted but `migrate create` could not
/// make, SQLite refusing them with a raw error. What only the storage layout shows
/// is checked at compilation and reported at the model text that made it.
@Suite struct LayoutValidatorTests {
    // MARK: - Helpers

    private func error(_ message: String, _ line: Int, _ column: Int, hint: String? = nil) -> Diagnostic {
        Diagnostic(.error, message, at: ModelText.at(line, column), hint: hint)
    }

    /// The layout diagnostics of `entities` (YAML lines under `entities:`, which
    /// starts on line 3; the first entity is on line 4), a model the validator accepts.
    private func expect(
        _ entities: String, reports expected: [Diagnostic],
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) throws {
        let version = try ModelText.description(
            "model: M\nversion: 1\nentities:\n" + entities, sourceLocation: sourceLocation)
        #expect(ModelValidator.validate(version).filter { $0.severity == .error } == [], sourceLocation: sourceLocation)
        #expect(ModelCompiler.compileCheckingLayout(version).diagnostics == expected, sourceLocation: sourceLocation)
    }

    /// `count` optional string attributes `<prefix>0`, `<prefix>1`, … as one flow mapping.
    private func attributes(_ prefix: String, _ count: Int) -> String {
        "{ " + (0..<count).map { "\(prefix)\($0): string?" }.joined(separator: ", ") + " }"
    }

    // MARK: - Names SQLite cannot tell apart

    @Test func anIndexNamedLikeAUniquenessIndex() throws {
        try expect(
            """
              Person:
                attributes: { email: string, name: string }
                uniqueness: [[email]]
                indexes:
                  - { name: UNIQUE_email, properties: [email] }

            """,
            reports: [
                error(
                    """
                    entity 'Person': index 'UNIQUE_email' and the index of uniqueness constraint [email] are both \
                    named Z_Person_UNIQUE_email in the store
                    """,
                    8, 9, hint: "rename the index")
            ])
    }

    @Test func anEntityTableNamedLikeAnAttributeIndex() throws {
        try expect(
            """
              Person:
                attributes: { name: { type: string, indexed: true } }
              Person_ZNAME_INDEX:
                attributes: { x: string }

            """,
            reports: [
                error(
                    """
                    entity 'Person': the index of attribute 'Person.name' and the table of entity 'Person_ZNAME_INDEX' \
                    are both named ZPERSON_ZNAME_INDEX in the store
                    """,
                    5, 19, hint: "rename one of them")
            ])
    }

    @Test func indexesOfTwoEntitiesDifferingOnlyInCase() throws {
        try expect(
            """
              Foo:
                attributes: { x: string }
                indexes: [{ name: Bar_x, properties: [x] }]
              Foo_bar:
                attributes: { x: string }
                indexes: [{ name: x, properties: [x] }]

            """,
            reports: [
                error(
                    """
                    entity 'Foo_bar': index 'x' and index 'Bar_x' of entity 'Foo' are named Z_Foo_Bar_x and \
                    Z_Foo_bar_x in the store, one name to SQLite (it ignores case)
                    """,
                    9, 15, hint: "rename the index")
            ])
    }

    @Test func joinTablesOfRelationshipsDifferingOnlyInCase() throws {
        try expect(
            """
              Post:
                relationships:
                  tags: { destination: Tag, toMany: true, inverse: posts }
                  tAGS: { destination: Tag, toMany: true, inverse: others }
              Tag:
                relationships:
                  posts: { destination: Post, toMany: true, inverse: tags }
                  others: { destination: Post, toMany: true, inverse: tAGS }

            """,
            reports: [
                error(
                    """
                    entity 'Post': the join table of relationship 'Post.tags' and the join table of relationship \
                    'Post.tAGS' are both named Z_1TAGS in the store
                    """,
                    6, 7, hint: "rename one of them")
            ])
    }

    // MARK: - Columns

    /// The root table holds Z_PK, Z_ENT, Z_OPT, every attribute of the hierarchy, a
    /// to-one's key and entity-number columns and the order column of its inverse.
    private func wide(childAttributes: Int) -> String {
        """
          Wide:
            attributes: \(attributes("a", 1000))
          WideChild:
            parent: Wide
            attributes: \(attributes("b", childAttributes))
            relationships:
              owner: { destination: Owner, inverse: items }
          Owner:
            relationships:
              items: { destination: WideChild, toMany: true, ordered: true, inverse: owner }
          SubOwner:
            parent: Owner

        """
    }

    @Test func moreColumnsThanSQLiteAllows() throws {
        try expect(
            wide(childAttributes: 995),
            reports: [
                error(
                    "entity 'Wide': its table ZWIDE needs 2001 columns, more than SQLite allows (2000)", 4, 3,
                    hint:
                        "the table holds Z_PK, Z_ENT, Z_OPT and the columns of every entity under 'Wide' (attributes, "
                        + "relationship keys, "
                        + "entity and order columns); move some attributes to a related entity")
            ])
    }

    @Test func exactlyAsManyColumnsAsSQLiteAllows() throws {
        let version = try ModelText.compile("model: M\nversion: 1\nentities:\n" + wide(childAttributes: 994))
        #expect(version.layout.table(named: "ZWIDE")?.columns.count == 2000)
        #expect(
            ModelCompiler.compileCheckingLayout(
                try ModelText.description("model: M\nversion: 1\nentities:\n" + wide(childAttributes: 994))
            )
            .diagnostics == [])
    }

    // MARK: - Through the loader

    @Test func theLoaderReportsLayoutProblemsWithTheOtherVersionsProblems() throws {
        let folder = try TemporaryDirectory(prefix: "layout-validator")
        defer { folder.remove() }
        let one = try folder.write(
            "M/1.yaml",
            """
            model: M
            version: 1
            entities:
              Person:
                attributes: { email: string }
                uniqueness: [[email]]
                indexes: [{ name: UNIQUE_email, properties: [email] }]

            """)
        let two = try folder.write("M/2.yaml", "model: M\nversion: 2\nentities:\n  Person: { parent: Nobody }\n")
        let result = ModelLoader.load(path: folder.file("M"))
        #expect(
            result.diagnostics == [
                Diagnostic(
                    .error,
                    """
                    entity 'Person': index 'UNIQUE_email' and the index of uniqueness constraint [email] \
                    are both named Z_Person_UNIQUE_email in the store
                    """,
                    at: SourceLocation(file: one, line: 7, column: 15), hint: "rename the index"),
                Diagnostic(
                    .error, "entity 'Person': unknown parent entity 'Nobody'",
                    at: SourceLocation(file: two, line: 4, column: 3)),
            ])
        #expect(result.models.first?.compiled == nil)
    }
}
