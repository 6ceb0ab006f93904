import DataModel
import ModelMigration
import SQLiteStore
import Testing

@testable import Mapping

/// `Outcome`: the one table of outcomes (exit code, word) and the one function
/// from any error to an outcome.
@Suite struct OutcomeTests {
    /// The table: every kind's exit code and JSON word, as Docs/JSON.md lists them.
    @Test func theTable() {
        let rows = Outcome.Kind.all.map { "\($0.word) \($0.exitCode)" }
        #expect(
            rows == [
                "current 0", "migrated 0", "would-migrate 0", "migration-needed 3", "no-path 4", "unknown-version 5",
                "destructive 6", "failed 1", "usage 64", "interrupted 130", "duplicate 0", "restored 0",
                "not-a-store 0",
            ])
        #expect(Outcome.Kind.interrupted(signal: 15).exitCode == 143)
        #expect(
            Outcome.Kind.all.filter(\.isFailure).map(\.word) == [
                "no-path", "unknown-version", "destructive", "failed", "usage", "interrupted",
            ])
        // A fleet's exit code is its weightiest store's: signal, gate, failure, unknown
        // version, no path, migration needed.
        let byWeight = Outcome.Kind.all.sorted { $0.weight > $1.weight }.prefix(7).map(\.word)
        #expect(
            byWeight == [
                "interrupted", "destructive", "failed", "usage", "unknown-version", "no-path", "migration-needed",
            ])
    }

    static func expect(
        _ error: any Error, signal: Int32? = nil, _ code: Int32, _ word: String, _ message: String,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) {
        let outcome = Outcome(error, signal: signal)
        #expect(outcome.exitCode == code, sourceLocation: sourceLocation)
        #expect(outcome.word == word, sourceLocation: sourceLocation)
        #expect(outcome.message == message, sourceLocation: sourceLocation)
    }

    @Test func planningErrorsByKind() {
        Self.expect(
            PlanningError(.noPath, "s.sqlite: hop 1 → 2 needs policy 'P'"), 4, "no-path",
            "s.sqlite: hop 1 → 2 needs policy 'P'")
        Self.expect(
            PlanningError(.unknownVersion, "s.sqlite: no version"), 5, "unknown-version", "s.sqlite: no version")
        Self.expect(
            PlanningError(.storeMismatch, "s.sqlite: ZITEM has no column ZNAME"), 1, "failed",
            "s.sqlite: ZITEM has no column ZNAME")
        Self.expect(PlanningError(.failed, "s.sqlite: cannot read"), 1, "failed", "s.sqlite: cannot read")
        Self.expect(
            PlanningError(.unknownTarget, "model Stock has no version 9 (versions 1 to 2)"), 64, "usage",
            "model Stock has no version 9 (versions 1 to 2)")
    }

    @Test func storeOpenAndRequestErrorsByKind() {
        Self.expect(
            StoreOpenError(kind: .migrationNeeded, message: "s.sqlite: version 1 needs a migration"), 3,
            "migration-needed",
            "s.sqlite: version 1 needs a migration")
        Self.expect(
            StoreOpenError(kind: .noPath, message: "s.sqlite: hop 1 → 2 has no mapping file"), 4, "no-path",
            "s.sqlite: hop 1 → 2 has no mapping file")
        Self.expect(
            RequestError(.invalidRequest, "--where: unknown key 'nmae'"), 64, "usage", "--where: unknown key 'nmae'")
        Self.expect(RequestError(.refused, "Customer 1: deny rule"), 1, "failed", "Customer 1: deny rule")
        Self.expect(RequestError(.failed, "s.sqlite: locked"), 1, "failed", "s.sqlite: locked")
    }

    @Test func versionInferenceAndDiagnostics() {
        Self.expect(
            UnknownVersionError(path: "s.sqlite", recognition: nil), 5, "unknown-version",
            "s.sqlite: no model under --models describes this store")
        let refusal = Refusal(
            kind: .typeChange, entity: "Item", property: "note", change: "type change string → integer16",
            remedy: "write a mapping file")
        Self.expect(
            InferenceFailure(model: "Stock", sourceVersion: 1, destinationVersion: 2, refusals: [refusal]), 4,
            "no-path",
            """
            no lightweight mapping from Stock version 1 to 2 (1 change inference cannot cover):
              Item.note: type change string → integer16
                remedy: write a mapping file
            """)
        let one = Diagnostic(
            .error, "unknown type 'strin'",
            at: DataModel.SourceLocation(file: "Models/Stock/1.yaml", line: 4, column: 13))
        let two = Diagnostic(
            .error, "duplicate entity 'Item'",
            at: DataModel.SourceLocation(file: "Models/Stock/2.yaml", line: 9, column: 3))
        Self.expect(DiagnosticsError([one]), 1, "failed", "Models/Stock/1.yaml:4:13: error: unknown type 'strin'")
        Self.expect(
            DiagnosticsError([one, two]), 1, "failed",
            """
            2 errors in the models or mapping files: Models/Stock/1.yaml:4:13: error: unknown type 'strin'; \
            Models/Stock/2.yaml:9:3: error: duplicate entity 'Item'
            """)
        #expect(Outcome(DiagnosticsError([one, two])).diagnostics == [one, two])
    }

    @Test func migrationStoreAndOtherErrors() {
        let cancelled = MigrationError(
            kind: .interrupted, message: "s.sqlite: interrupted; rolled back, the store is unchanged")
        Self.expect(
            cancelled, signal: 2, 130, "interrupted", "s.sqlite: interrupted; rolled back, the store is unchanged")
        Self.expect(
            cancelled, signal: 15, 143, "interrupted", "s.sqlite: interrupted; rolled back, the store is unchanged")
        Self.expect(cancelled, 1, "failed", "s.sqlite: interrupted; rolled back, the store is unchanged")
        Self.expect(
            MigrationError(kind: .locked, message: "s.sqlite: locked by pid 7"), signal: 2, 1, "failed",
            "s.sqlite: locked by pid 7")
        let full = SQLiteError(resultCode: 13, message: "database or disk is full")
        Self.expect(full, 1, "failed", "the disk is full (SQLite error 13 (SQLITE_FULL): database or disk is full)")
        Self.expect(
            StoreError(.notADatabase, "s.sqlite: not an SQLite database"), 1, "failed",
            "s.sqlite: not an SQLite database")
        struct Other: Error, CustomStringConvertible { var description: String { "something else" } }
        Self.expect(Other(), 1, "failed", "something else")
        Self.expect(Outcome(.destructive, "s.sqlite: loses data"), signal: 2, 6, "destructive", "s.sqlite: loses data")
    }
}
