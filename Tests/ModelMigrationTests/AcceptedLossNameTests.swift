import DataModel
import Foundation
import ModelMigration
import TestSupport
import Testing

/// `accepted-losses.yaml` names hops and losses a model has: a key that spans
/// versions is not one hop, a YAML error names its own line.
@Suite struct AcceptedLossNameTests {
    static let version = "entities:\n  A:\n    attributes: { k: string?, x: string? }\n"

    @Test func aKeyThatSpansVersionsIsNotOneHop() throws {
        let s = try MigrationScenario("G", versions: [Self.version, Self.version, Self.version])
        defer { s.remove() }
        try s.writeMapping("accepted-losses.yaml", "1-to-2: [A.x]\n1-to-3: [A.x]\n")
        let losses = try AcceptedLosses.load(accept: [], migrationsFolder: s.migrationsFolder, model: "G")
        let problems = losses.unknownNames(in: try s.model())
        #expect(problems.map(\.message) == ["accepted losses: 1-to-3: not one hop (version 2 lies between)"])
        #expect(problems.first?.location?.line == 2 && problems.first?.location?.column == 1)
        #expect(problems.first?.hint == "accept each hop's losses under its own key (1-to-2, 2-to-3)")
    }

    /// `02-to-03` is not a spelling of `2-to-3`: it would merge with it silently.
    @Test func aHopKeyIsWrittenAsItsNumbers() throws {
        let s = try MigrationScenario("G", versions: [Self.version, Self.version])
        defer { s.remove() }
        try s.writeMapping("accepted-losses.yaml", "1-to-2: [A.x]\n01-to-02: [A.k]\n")
        #expect {
            try AcceptedLosses.load(accept: [], migrationsFolder: s.migrationsFolder, model: "G")
        } throws: { error in
            (error as? DiagnosticsError)?.diagnostics.map(\.message) == [
                "accepted losses: '01-to-02' is not a hop (`A-to-B`, A below B)"
            ]
        }
    }

    @Test func aYAMLErrorNamesItsOwnLine() throws {
        let s = try MigrationScenario("G", versions: [Self.version, Self.version])
        defer { s.remove() }
        try s.writeMapping("accepted-losses.yaml", "1-to-2: [A.x]\n1-to-2: [A.k]\n")
        #expect {
            try AcceptedLosses.load(accept: [], migrationsFolder: s.migrationsFolder, model: "G")
        } throws: { error in
            let diagnostics = (error as? DiagnosticsError)?.diagnostics ?? []
            return diagnostics.count == 1 && diagnostics[0].location?.line == 2
                && !diagnostics[0].message.contains("error:")
        }
    }
}
