import Foundation
import Testing

@testable import SQLiteStore

@Suite struct ConnectionTests {
    // MARK: - Opening

    @Test func readWriteCreateMakesAWritableFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("new.sqlite")
        let db = try Connection(path: path, mode: .readWriteCreate)
        try db.execute("CREATE TABLE t(x)")
        #expect(db.path == path)
        #expect(!db.isReadOnly)
        #expect(FileManager.default.fileExists(atPath: path))
        try db.close()
    }

    @Test func openingAMissingFileReadOnlyFailsWithCantOpen() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("missing.sqlite")
        let error = try #require(throws: SQLiteError.self) {
            _ = try Connection(path: path, mode: .readOnly)
        }
        #expect(error.kind == .cantOpen)
        #expect(error.resultCode == 14)
        #expect(error.path == path)
        #expect(
            error.description
                == """
                \(path): SQLite error 14 (SQLITE_CANTOPEN): unable to open database file (No such file or directory)
                """
        )
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func readWriteDoesNotCreateAFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let error = try #require(throws: SQLiteError.self) {
            _ = try Connection(path: directory.path("missing.sqlite"))
        }
        #expect(error.kind == .cantOpen)
    }

    @Test func readOnlyConnectionCannotWrite() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.makeStore("CREATE TABLE t(x)")
        let db = try Connection(path: path, mode: .readOnly)
        #expect(db.isReadOnly)
        let error = try #require(throws: SQLiteError.self) {
            try db.execute("INSERT INTO t VALUES (1)")
        }
        #expect(error.kind == .readOnly)
        #expect(error.resultCode == 8)
        #expect(error.message == "attempt to write a readonly database")
        #expect(error.sql == "INSERT INTO t VALUES (1)")
        #expect(error.path == nil)
        #expect(
            error.description
                == """
                SQLite error 8 (SQLITE_READONLY): attempt to write a readonly database — in `INSERT INTO t VALUES (1)`
                """
        )
    }

    @Test func fileThatIsNotADatabaseFailsWhenFirstRead() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("notes.txt")
        try Data(String(repeating: "not a database, just some text\n", count: 40).utf8)
            .write(to: URL(fileURLWithPath: path))
        let db = try Connection(path: path)  // opening is lazy
        let error = try #require(throws: SQLiteError.self) { try db.tables() }
        #expect(error.kind == .notADatabase)
        #expect(error.resultCode == 26)
        #expect(error.message == "file is not a database")
    }

    // MARK: - Values

    @Test func everyValueRoundTrips() throws {
        let db = try Connection.inMemory()
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, v)")
        let values: [DatabaseValue] = [
            .null, .integer(0), .integer(Int64.min), .integer(Int64.max),
            .real(1.5), .real(-0.25), .real(Double.greatestFiniteMagnitude),
            .text(""), .text("it's"), .text("a\u{0}b"), .text("Zoë — 日本語 👋🏽"),
            .blob([]), .blob([0x00, 0x0A, 0xFF]),
        ]
        let insert = try db.prepare("INSERT INTO t(v) VALUES (?)")
        for value in values {
            try insert.bind([value])
            try insert.execute()
        }
        let rows = try db.prepare("SELECT v, typeof(v), length(CAST(v AS BLOB)) FROM t ORDER BY id").rows()
        #expect(rows.map { $0[0] } == values)
        #expect(
            rows.map { $0[1] } == [
                "null", "integer", "integer", "integer", "real", "real", "real",
                "text", "text", "text", "text", "blob", "blob",
            ])
        // The NUL stays inside the text: three bytes stored, not one.
        #expect(rows[9][2] == 3)
        #expect(rows[7][2] == 0 && rows[11][2] == 0)  // empty, but not NULL
    }

    @Test func typedColumnAccessors() throws {
        let db = try Connection.inMemory()
        let statement = try db.prepare("SELECT 42, 2.5, 'héllo', X'0102', NULL, x'' AS empty")
        #expect(try statement.step())
        #expect(statement.columnCount == 6)
        #expect(statement.columnName(5) == "empty")
        #expect(statement.int64(at: 0) == 42)
        #expect(statement.double(at: 1) == 2.5)
        #expect(statement.string(at: 2) == "héllo")
        #expect(statement.blob(at: 3) == [1, 2])
        #expect(statement.isNull(at: 4) && !statement.isNull(at: 5))
        #expect(statement.value(at: 5) == .blob([]))
        #expect(try !statement.step())
    }

    @Test func namedParametersAndArgumentCount() throws {
        let db = try Connection.inMemory()
        let statement = try db.prepare("SELECT :a || @b")
        try statement.bind("x", name: "a")
        try statement.bind("y", name: "@b")
        #expect(try statement.rows() == [["xy"]])
        let unknown = try #require(throws: SQLiteError.self) { try statement.bind(1, name: "c") }
        #expect(unknown.message == "no parameter named :c")
        let count = try #require(throws: SQLiteError.self) { try statement.bind([1]) }
        #expect(count.description == "SQLite error 25 (SQLITE_RANGE): 1 values for 2 parameters — in `SELECT :a || @b`")
    }

    @Test func forEachRowVisitsEveryRowAndCanRunAgain() throws {
        let db = try Connection.inMemory()
        let statement = try db.prepare("SELECT column1 FROM (VALUES (1), (2), (3))")
        var seen: [Int64] = []
        try statement.forEachRow { seen.append($0.int64(at: 0)) }
        try statement.forEachRow { seen.append($0.int64(at: 0)) }
        #expect(seen == [1, 2, 3, 1, 2, 3])
    }

    @Test func scalarsChangesAndRowIDs() throws {
        let db = try Connection.inMemory()
        try db.execute("CREATE TABLE t(x); INSERT INTO t VALUES (1), (2), (NULL);")
        #expect(db.changes == 3)
        #expect(db.lastInsertRowID == 3)
        #expect(try db.scalarInt64("SELECT count(*) FROM t WHERE x > ?", 1) == 1)
        #expect(try db.scalarDouble("SELECT avg(x) FROM t") == 1.5)
        #expect(try db.scalarString("SELECT 'a' || ?", "b") == "ab")
        #expect(try db.scalarInt64("SELECT x FROM t WHERE x IS NULL") == nil)
        #expect(try db.scalar("SELECT x FROM t WHERE x IS NULL") == .null)
        #expect(try db.scalar("SELECT x FROM t WHERE 0") == nil)
        try db.execute("UPDATE t SET x = 0")
        #expect(db.changes == 3)
        #expect(db.totalChanges == 6)
    }

    /// `mm_audit(violates, key)`: 1 for a row that holds the precondition (false or
    /// NULL), the statement's failure naming the row for one that does not.
    @Test func auditFunctionPassesGoodRowsAndFailsAtABadOne() throws {
        let db = try Connection.inMemory()
        try db.execute(
            "CREATE TABLE t(Z_PK INTEGER PRIMARY KEY, v); INSERT INTO t VALUES (1, NULL), (2, 'ok'), (3, 'bad')")
        #expect(try db.scalarInt64("SELECT sum(mm_audit(v = 'bad', Z_PK)) FROM t WHERE Z_PK < 3") == 2)
        #expect(try db.scalarInt64("SELECT mm_audit(NULL, 1)") == 1)
        #expect {
            try db.scalarInt64("SELECT count(*) FROM t WHERE mm_audit(v = 'bad', Z_PK)")
        } throws: { error in
            (error as? SQLiteError)?.message == "source row Z_PK 3 fails a precondition of the store"
        }
    }

    @Test func databaseValueDescriptionsAreSQLLiterals() {
        let values: [DatabaseValue] = [
            .null, 42, -7, 1.5, 3.0, .real(.infinity), "it's", "", .blob([0x0A, 0x0B]), .blob([]),
        ]
        #expect(
            values.map(\.description) == [
                "NULL", "42", "-7", "1.5", "3.0", "9e999", "'it''s'", "''", "X'0A0B'", "X''",
            ])
        #expect(DatabaseValue(true) == .integer(1))
        #expect(DatabaseValue.integer(2).double == 2.0)
        #expect(DatabaseValue.text("2").int64 == nil)
    }

    // MARK: - Statements

    @Test func scriptErrorsNameTheFailingStatement() throws {
        let db = try Connection.inMemory()
        let error = try #require(throws: SQLiteError.self) {
            try db.execute(
                """
                CREATE TABLE a(x); -- first
                INSERT INTO missing VALUES (1);
                CREATE TABLE b(x);
                """)
        }
        #expect(
            error.description
                == "SQLite error 1 (SQLITE_ERROR): no such table: missing — in `INSERT INTO missing VALUES (1);`")
        #expect(try db.tables() == ["a"])
    }

    @Test func scriptStopsAtANulCharacter() throws {
        let db = try Connection.inMemory()
        try db.execute("CREATE TABLE a(x);\u{0}CREATE TABLE b(x);")
        #expect(try db.tables() == ["a"])
    }

    @Test func stepErrorsInScriptsNameTheStatement() throws {
        let db = try Connection.inMemory()
        let error = try #require(throws: SQLiteError.self) {
            try db.execute("CREATE TABLE t(x NOT NULL);\n/* seed */ INSERT INTO t VALUES (NULL);")
        }
        #expect(error.resultCode == 1299)
        #expect(error.sql == "INSERT INTO t VALUES (NULL);")
        #expect(error.message == "NOT NULL constraint failed: t.x")
    }

    @Test func prepareRefusesASecondStatementButAllowsTrailingComments() throws {
        let db = try Connection.inMemory()
        _ = try db.prepare("SELECT 1; -- done\n")
        let error = try #require(throws: SQLiteError.self) { try db.prepare("SELECT 1; SELECT 2") }
        #expect(error.kind == .misuse)
        #expect(error.message == "more than one SQL statement; run scripts with execute(_:)")
        #expect(throws: SQLiteError.self) { try db.prepare("  -- nothing ") }
    }

    @Test func cachedStatementsAreReusedResetAndCleared() throws {
        let db = try Connection.inMemory()
        let sql = "SELECT column1 + ? FROM (VALUES (1), (2), (3))"
        let first = try db.cachedStatement(sql)
        try first.bind([10])
        #expect(try first.step())
        #expect(first.int64(at: 0) == 11)
        let second = try db.cachedStatement(sql)
        #expect(first === second)
        #expect(try second.step())  // starts over, its parameter back to NULL
        #expect(second.isNull(at: 0))
        #expect(try db.prepare(sql) !== second)
    }

    @Test func closeFailsWhileAStatementIsAlive() throws {
        let db = try Connection.inMemory()
        var statement: Statement? = try db.prepare("SELECT 1")
        let error = try #require(throws: SQLiteError.self) { try db.close() }
        #expect(error.kind == .busy)
        #expect(error.message == "unable to close: statements still in use: SELECT 1")
        _ = statement
        statement = nil
        try db.close()
    }

    // MARK: - Errors

    @Test func uniqueViolationCarriesExtendedCodeAndSQL() throws {
        let db = try Connection.inMemory()
        try db.execute("CREATE TABLE ZPERSON(Z_PK INTEGER PRIMARY KEY, ZEMAIL TEXT UNIQUE)")
        let sql = "INSERT INTO ZPERSON(ZEMAIL) VALUES (?)"
        let insert = try db.cachedStatement(sql)
        try insert.bind(["a@example.com"])
        try insert.execute()
        let error = try #require(throws: SQLiteError.self) { try insert.execute() }
        #expect(error.kind == .constraint)
        #expect(error.resultCode == 2067)
        #expect(error.primaryResultCode == 19)
        #expect(error.sql == sql)
        #expect(
            error.description
                == """
                SQLite error 2067 (SQLITE_CONSTRAINT_UNIQUE): UNIQUE constraint failed: ZPERSON.ZEMAIL — in `\(sql)`
                """
        )
    }

    // MARK: - Transactions

    @Test func transactionCommitsOnReturn() throws {
        let db = try Connection.inMemory()
        try db.execute("CREATE TABLE t(x)")
        let count = try db.transaction {
            #expect(db.isInTransaction)
            try db.execute("INSERT INTO t VALUES (1), (2)")
            return db.changes
        }
        #expect(count == 2)
        #expect(!db.isInTransaction)
        #expect(try db.scalarInt64("SELECT count(*) FROM t") == 2)
    }

    @Test func transactionRollsBackAndRethrowsTheBodysError() throws {
        let db = try Connection.inMemory()
        try db.execute("CREATE TABLE t(x)")
        #expect(throws: Failure("body")) {
            try db.transaction(.deferred) {
                try db.execute("INSERT INTO t VALUES (1)")
                throw Failure("body")
            }
        }
        #expect(!db.isInTransaction)
        #expect(try db.scalarInt64("SELECT count(*) FROM t") == 0)
    }

    @Test func rollbackDoesNotMaskTheOriginalError() throws {
        let db = try Connection.inMemory()
        try db.execute("CREATE TABLE t(x)")
        // The body ends the transaction itself, so a ROLLBACK would fail with "cannot
        // rollback - no transaction is active"; the caller must still see the body's error.
        #expect(throws: Failure("after commit")) {
            try db.transaction {
                try db.execute("INSERT INTO t VALUES (1); COMMIT")
                throw Failure("after commit")
            }
        }
        #expect(try db.scalarInt64("SELECT count(*) FROM t") == 1)
    }

    @Test func failedCommitRollsBack() throws {
        let db = try Connection.inMemory()
        try db.execute(
            """
            PRAGMA foreign_keys = ON;
            CREATE TABLE parent(id INTEGER PRIMARY KEY);
            CREATE TABLE child(parent REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED);
            """)
        let error = try #require(throws: SQLiteError.self) {
            try db.transaction { try db.execute("INSERT INTO child VALUES (7)") }
        }
        #expect(error.resultCode == 787)
        #expect(error.sql == "COMMIT TRANSACTION")
        #expect(!db.isInTransaction)
        #expect(try db.scalarInt64("SELECT count(*) FROM child") == 0)
    }

    @Test func nestedSavepointsRollBackOnlyTheirOwnWork() throws {
        let db = try Connection.inMemory()
        try db.execute("CREATE TABLE t(x)")
        try db.transaction {
            try db.savepoint("outer") {
                try db.execute("INSERT INTO t VALUES (1)")
                #expect(throws: Failure("inner")) {
                    try db.savepoint("in\"ner") {
                        try db.execute("INSERT INTO t VALUES (2)")
                        try db.savepoint("innermost") { try db.execute("INSERT INTO t VALUES (3)") }
                        throw Failure("inner")
                    }
                }
                try db.execute("INSERT INTO t VALUES (4)")
            }
            #expect(db.isInTransaction)
        }
        #expect(try db.prepare("SELECT x FROM t ORDER BY x").rows() == [[1], [4]])
    }

    @Test func outermostSavepointIsATransaction() throws {
        let db = try Connection.inMemory()
        try db.execute("CREATE TABLE t(x)")
        #expect(throws: Failure("stop")) {
            try db.savepoint("only") {
                #expect(db.isInTransaction)
                try db.execute("INSERT INTO t VALUES (1)")
                throw Failure("stop")
            }
        }
        #expect(!db.isInTransaction)
        try db.savepoint("only") { try db.execute("INSERT INTO t VALUES (2)") }
        #expect(!db.isInTransaction)
        #expect(try db.prepare("SELECT x FROM t").rows() == [[2]])
    }

    @Test func busyAfterTheTimeoutWhenAnotherConnectionWrites() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.makeStore("CREATE TABLE t(x)")
        let holder = try Connection(path: path)
        let waiter = try Connection(path: path, busyTimeout: 0.1)
        try holder.execute("BEGIN IMMEDIATE")
        let clock = ContinuousClock()
        let start = clock.now
        let error = try #require(throws: SQLiteError.self) {
            try waiter.transaction(.immediate) {}
        }
        let elapsed = clock.now - start
        #expect(error.kind == .busy)
        #expect(error.resultCode == 5)
        #expect(error.message == "database is locked")
        #expect(elapsed >= .milliseconds(90) && elapsed < .seconds(2))
        #expect(!waiter.isInTransaction)
        try holder.execute("COMMIT")
        try waiter.transaction { try waiter.execute("INSERT INTO t VALUES (1)") }
    }

    // MARK: - Schema and files

    @Test func schemaIntrospection() throws {
        let db = try Connection.inMemory()
        try db.execute(
            #"""
            CREATE TABLE ZPERSON(
                Z_PK INTEGER PRIMARY KEY, ZNAME VARCHAR(20) NOT NULL DEFAULT 'none',
                ZEMAIL TEXT UNIQUE, ZFULL TEXT GENERATED ALWAYS AS (ZNAME || ZEMAIL) VIRTUAL);
            CREATE INDEX ZPERSON_ZNAME ON ZPERSON(ZNAME DESC, lower(ZEMAIL)) WHERE ZNAME <> '';
            CREATE TABLE "Z_ODD ""NAME"""(a, b, PRIMARY KEY (b, a));
            CREATE TABLE Z_META(x);
            """#)
        #expect(try db.tables() == ["ZPERSON", "Z_META", "Z_ODD \"NAME\""])
        #expect(try db.tableExists("zperson"))
        #expect(try !db.tableExists("ZPERSON_ZNAME"))
        #expect(
            try db.columns(of: "ZPERSON") == [
                ColumnInfo(name: "Z_PK", declaredType: "INTEGER", notNull: false, defaultSQL: nil, primaryKeyIndex: 1),
                ColumnInfo(
                    name: "ZNAME",
                    declaredType: """
                        VARCHAR(20)
                        """, notNull: true, defaultSQL: "'none'", primaryKeyIndex: 0),
                ColumnInfo(name: "ZEMAIL", declaredType: "TEXT", notNull: false, defaultSQL: nil, primaryKeyIndex: 0),
                ColumnInfo(
                    name: "ZFULL", declaredType: "TEXT", notNull: false, defaultSQL: nil, primaryKeyIndex: 0,
                    hidden: .generatedVirtual),
            ])
        #expect(try db.columns(of: "Z_ODD \"NAME\"").map(\.primaryKeyIndex) == [2, 1])
        #expect(try db.columns(of: "nothing") == [])
        #expect(
            try db.indexes(of: "ZPERSON") == [
                IndexInfo(
                    name: "ZPERSON_ZNAME", isUnique: false, origin: .createIndex, isPartial: true,
                    columns: [.init(name: "ZNAME", isDescending: true), .init(name: nil)],
                    sql: "CREATE INDEX ZPERSON_ZNAME ON ZPERSON(ZNAME DESC, lower(ZEMAIL)) WHERE ZNAME <> ''"),
                IndexInfo(
                    name: "sqlite_autoindex_ZPERSON_1", isUnique: true, origin: .uniqueConstraint,
                    isPartial: false, columns: [.init(name: "ZEMAIL")], sql: nil),
            ])
        #expect(try db.indexes(of: "Z_ODD \"NAME\"").map(\.origin) == [.primaryKey])
    }

    @Test func sqlTextQuotesIdentifiersDoublingInnerQuotes() throws {
        #expect(SQLText.q("ZPERSON") == "\"ZPERSON\"")
        #expect(SQLText.q("a\"b") == "\"a\"\"b\"")
        #expect(SQLText.q("") == "\"\"")
        let db = try Connection.inMemory()
        let name = "odd \"name\"; DROP TABLE x"
        try db.execute("CREATE TABLE \(SQLText.q(name))(v)")
        #expect(try db.tables() == [name])
    }

    @Test func backupIsAnIdenticalReadableCopy() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.makeStore(
            """
            CREATE TABLE ZITEM(Z_PK INTEGER PRIMARY KEY, ZNAME TEXT, ZDATA BLOB);
            CREATE INDEX ZITEM_ZNAME ON ZITEM(ZNAME);
            WITH RECURSIVE n(value) AS (SELECT 1 UNION ALL SELECT value + 1 FROM n WHERE value < 500)
            INSERT INTO ZITEM(ZNAME, ZDATA) SELECT 'item ' || value, randomblob(100) FROM n;
            """)
        let source = try Connection(path: path)
        let copyPath = directory.path("copy.sqlite")
        try source.backup(to: copyPath)

        let copy = try Connection(path: copyPath, mode: .readOnly)
        #expect(try copy.scalarString("PRAGMA integrity_check") == "ok")
        let dump = "SELECT type, name, sql FROM sqlite_schema ORDER BY name"
        #expect(try copy.prepare(dump).rows() == source.prepare(dump).rows())
        let rows = "SELECT * FROM ZITEM ORDER BY Z_PK"
        #expect(try copy.prepare(rows).rows() == source.prepare(rows).rows())
        #expect(try copy.scalarInt64("SELECT count(*) FROM ZITEM") == 500)
    }

    @Test func backupToAnUnwritablePathFails() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let db = try Connection.inMemory()
        let target = directory.path("no/such/dir/copy.sqlite")
        let error = try #require(throws: SQLiteError.self) { try db.backup(to: target) }
        #expect(error.kind == .cantOpen)
        #expect(error.path == target)
    }
}

// MARK: - Helpers

private struct Failure: Error, Equatable {
    var reason: String
    init(_ reason: String) { self.reason = reason }
}

/// A fresh directory under the system temporary directory; remove it when done.
private struct TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("ConnectionTests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// A database file made by running `script`.
    func makeStore(_ script: String, name: String = "store.sqlite") throws -> String {
        let path = path(name)
        let db = try Connection(path: path, mode: .readWriteCreate)
        try db.execute(script)
        try db.close()
        return path
    }

    func remove() { try? FileManager.default.removeItem(at: url) }
}

extension Connection {
    fileprivate static func inMemory() throws -> Connection {
        try Connection(path: ":memory:", mode: .readWriteCreate)
    }
}

/// `mm_string`, `CAST(x, 'NSString')`: a number as NSNumber's description writes it.
@Suite struct NumberTextTests {
    @Test func aNumberReadsAsFoundationWritesIt() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let db = try Connection(path: directory.path("n.sqlite"), mode: .readWriteCreate)
        defer { try? db.close() }
        let cases: [(String, String?)] = [
            ("3.0", "3"), ("-120.0", "-120"), ("0.3333333333333333", "0.3333333333333333"), ("2.5", "2.5"),
            ("1e20", "1e+20"), ("0.00005", "5e-05"), ("7", "7"), ("9223372036854775807", "9223372036854775807"),
            ("NULL", nil), ("'x'", "x"),
        ]
        for (sql, text) in cases {
            #expect(try db.scalarString("SELECT mm_string(\(sql))") == text, "\(sql)")
        }
        // SQLite's own text conversion, which the function replaces.
        #expect(try db.scalarString("SELECT CAST(0.3333333333333333 AS TEXT)") == "0.333333333333333")
    }
}
