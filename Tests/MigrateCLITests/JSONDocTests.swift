import Foundation
import ModelMigration
import TestSupport
import Testing

/// Docs/JSON.md against real output: the keys of each documented JSON example are
/// the keys the command writes.
@Suite struct JSONDocTests {
    /// The JSON examples of each `## section` of Docs/JSON.md, in order: one value per
    /// example, or one per line for JSON Lines. `…` (an elided part) reads as null.
    static func examples() throws -> [String: [[Any]]] {
        let text = try String(contentsOfFile: TestModels.packageRoot + "/Docs/JSON.md", encoding: .utf8)
        var result: [String: [[Any]]] = [:]
        var section = "", block: [String]? = nil
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("## ") {
                section = String(line.dropFirst(3))
                continue
            }
            if line.hasPrefix("```") {
                if let lines = block {
                    let body = lines.joined(separator: "\n").replacingOccurrences(of: "…", with: "null")
                    let lineValues = lines.compactMap {
                        try? JSONSerialization.jsonObject(
                            with: Data($0.replacingOccurrences(of: "…", with: "null").utf8))
                    }
                    if let whole = try? JSONSerialization.jsonObject(with: Data(body.utf8)) {
                        result[section, default: []].append([whole])
                    } else if !lineValues.isEmpty, lineValues.count == lines.filter({ !$0.isEmpty }).count {
                        result[section, default: []].append(lineValues)
                    }
                    block = nil
                } else {
                    block = []
                }
                continue
            }
            block?.append(line)
        }
        return result
    }

    /// Real keys must equal the example's at the top level (nested objects are
    /// abridged in the examples, and optional keys there are absent when nil).
    static func compare(documented: Any, real: Any, path: String) {
        let doc = documented as? [String: Any], out = real as? [String: Any]
        #expect(doc != nil && out != nil, "\(path): not objects")
        guard let doc, let out else { return }
        #expect(
            Set(doc.keys) == Set(out.keys), "\(path): documented \(doc.keys.sorted()), written \(out.keys.sorted())")
    }

    static func json(_ text: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(text.utf8))
    }

    /// The example whose `event` is `event` among JSON Lines examples.
    static func event(_ event: String, in examples: [[Any]]) -> [String: Any]? {
        examples.joined().compactMap { $0 as? [String: Any] }.first { $0["event"] as? String == event }
    }

    @Test func documentedKeysAreTheKeysWritten() throws {
        let docs = try Self.examples()
        let f = try StockFixture()
        defer { f.remove() }
        let store = try f.store()
        func run(_ arguments: [String]) throws -> String { try f.migrate(arguments + ["--json"]).stdout }
        func check(_ section: String, _ index: Int = 0, _ text: String) throws {
            let example = try #require(docs[section]?[index].first, "Docs/JSON.md has no JSON example under \(section)")
            Self.compare(documented: example, real: try Self.json(text), path: section)
        }

        try check("Failures", 0, try run(["inspect", "nothing.sqlite"]))
        try check("validate", 0, try run(["validate"] + f.models))
        try check("create", 0, try run(["create"] + f.models + ["new.sqlite", "--version", "1"]))
        try check("inspect", 0, try run(["inspect"] + f.models + [store]))
        try check("status", 0, try run(["status"] + f.models + [store]))
        try check("plan", 0, try run(["plan"] + f.models + [store]))
        try check("diff A B", 0, try run(["diff"] + f.models + ["1", "2"]))

        // apply: each documented event kind against the one written.
        let applyDocs = try #require(docs["apply"])
        let events = try run(["apply"] + f.models + ["new.sqlite", "--backup-dir", "backups"]).split(separator: "\n")
            .map { try Self.json(String($0)) }
        for kind in ["step", "stepDone", "checks", "done"] {
            let written = try #require(
                events.compactMap { $0 as? [String: Any] }.first { $0["event"] as? String == kind }, "no \(kind) event")
            Self.compare(
                documented: try #require(Self.event(kind, in: applyDocs), "apply: no \(kind) example"), real: written,
                path: "apply.\(kind)")
        }
        try check("restore", 0, try run(["restore"] + f.models + ["new.sqlite", "--backup-dir", "backups"]))

        // fleet: the store record of a migrated store and the summary.
        let fleetDocs = try #require(docs["fleet status, fleet plan, fleet apply"])
        let fleet = try run(["fleet", "apply", "--shard", "0/1", "--backup-dir", "fleet-backups"] + f.models + [store])
        let records = try fleet.split(separator: "\n").compactMap { try Self.json(String($0)) as? [String: Any] }
        let migrated = try #require(records.first { $0["status"] as? String == "migrated" })
        let documentedStore = try #require(
            fleetDocs.joined().compactMap { $0 as? [String: Any] }.first { $0["status"] as? String == "migrated" })
        Self.compare(documented: documentedStore, real: migrated, path: "fleet.store")
        Self.compare(
            documented: try #require(Self.event("summary", in: fleetDocs)),
            real: try #require(records.first { $0["event"] as? String == "summary" }),
            path: "fleet.summary")
        try check(
            "fetch, update, delete", 1,
            try run(["update"] + f.models + [store, "Item", "--set", "value = value", "--dry-run"]))
    }

    /// The README's "Exit codes" table, the one home of exit codes, lists every
    /// outcome of the code's one table, in its order, with its word and exit code.
    @Test func theExitCodesTableIsTheCodes() throws {
        let text = try String(contentsOfFile: TestModels.packageRoot + "/README.md", encoding: .utf8)
        let section = try #require(
            text.components(separatedBy: "## Exit codes\n").dropFirst().first?.components(separatedBy: "\n## ").first)
        let rows = section.split(separator: "\n").filter { $0.hasPrefix("| `") }.map { line in
            line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
        }
        #expect(rows.map { $0[0] } == Outcome.Kind.all.map { "`\($0.word)`" })
        for (row, kind) in zip(rows, Outcome.Kind.all) {
            if case .interrupted = kind {
                #expect(row[1] == "128 + signal (130, 143)")
            } else {
                #expect(row[1] == String(kind.exitCode), "\(kind.word)")
            }
        }
    }
}
