import Foundation
import Testing
import TestSupport
import ModelMigration

let exPeople = """
entities:
  Person:
    attributes:
      name: string
      age: integer16?
    relationships:
      pets: { destination: Pet, toMany: true, inverse: owner }
  Pet:
    attributes:
      name: string
    relationships:
      owner: { destination: Person, inverse: pets, optional: true }

"""

func exSeed(_ s: MigrationScenario) throws {
    try s.withObjects { o in
        try o.insert("Person", values: ["name": .string("Ann"), "age": .integer(30)])
        try o.insert("Person", values: ["name": .string("Bob")])
        try o.insert("Person", values: ["name": .string("Cy"), "age": .integer(41)])
        try o.insert("Pet", values: ["name": .string("Rex")], relationships: ["owner": [1]])
        try o.insert("Pet", values: ["name": .string("Tom")], relationships: ["owner": [3]])
        try o.insert("Pet", values: ["name": .string("Kit")], relationships: ["owner": [1]])
        try o.insert("Pet", values: ["name": .string("Zed")])
    }
}

func exShow(_ label: String, _ versions: [String], seed: ((MigrationScenario) throws -> Void)? = nil, entities: [String]) {
    var out = "=== \(label)\n"
    do {
        let s = try MigrationScenario("M", versions: versions)
        defer { s.remove() }
        try (seed ?? exSeed)(s)
        for target in 2...versions.count {
            let plan = try s.plan(to: target)
            out += "-- plan to \(target): hops \(plan.hops.map { "\($0.from)->\($0.to)" })\n"
            for st in plan.allSteps { out += "  \(st.kind) [\(st.cost)] \(st.table ?? "")\n" ; for q in st.sql { out += "     \(q)\n" } ; if let e = st.expectedRowsSQL { out += "     expect: \(e)\n" } }
            for c in plan.hops.flatMap(\.checks) { out += "  check: \(c.summary): \(c.sql)\n" }
            for w in plan.warnings { out += "  warning: \(w)\n" }
            try Migrator().apply(plan)
            out += "   now version \(try s.storeVersion())\n"
            for e in entities.filter({ (try? s.model().version(target)?.entity(named: $0)) != nil }) {
                for o in try s.fetch(e) { out += "   \(o.entity) \(o.primaryKey) \(o.values.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }) \(o.relationships.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })\n" }
            }
            out += "   keys: \(try s.entityKeys().map { "\($0.number):\($0.name):\($0.parent):\($0.maxKey)" })\n"
        }
    } catch { out += "ERROR: \(error)\n" }
    try? out.write(toFile: "/tmp/mm/\(label).txt", atomically: true, encoding: .utf8)
}

@Suite struct MigratorExploreTests {
    @Test func explore() throws {
        let P = ["Person", "Pet"]
        exShow("addOptional", [exPeople, exPeople.replacingOccurrences(of: "      age: integer16?\n", with: "      age: integer16?\n      nickname: string?\n")], entities: P)
        exShow("addRequiredDefault", [exPeople, exPeople.replacingOccurrences(of: "      age: integer16?\n", with: "      age: integer16?\n      score: { type: integer32, default: 7 }\n")], entities: P)
        exShow("removeAttr", [exPeople, exPeople.replacingOccurrences(of: "      age: integer16?\n", with: "")], entities: P)
        exShow("renameAttr", [exPeople, exPeople.replacingOccurrences(of: "      age: integer16?\n", with: "      years: { type: integer16, optional: true, renamedFrom: age }\n")], entities: P)
        exShow("widen64", [exPeople, exPeople.replacingOccurrences(of: "      age: integer16?\n", with: "      age: integer64?\n")], entities: P)
        exShow("requiredDefault", [exPeople, exPeople.replacingOccurrences(of: "      age: integer16?\n", with: "      age: { type: integer16, default: 18 }\n")], entities: P)
        exShow("addEntity", [exPeople, exPeople + "  Toy:\n    attributes:\n      label: string\n"], entities: P + ["Toy"])
        let noPets = """
        entities:
          Person:
            attributes:
              name: string
              age: integer16?

        """
        exShow("removeEntity", [exPeople, noPets], entities: P)
        exShow("renameEntity", [exPeople, exPeople.replacingOccurrences(of: "  Pet:\n", with: "  Animal:\n    renamedFrom: Pet\n").replacingOccurrences(of: "destination: Pet", with: "destination: Animal")], entities: ["Person", "Animal", "Pet"])
        exShow("ordered", [exPeople, exPeople.replacingOccurrences(of: "toMany: true, inverse: owner", with: "toMany: true, ordered: true, inverse: owner"), exPeople], entities: P)
        exShow("manyToMany", [exPeople, exPeople.replacingOccurrences(of: "      owner: { destination: Person, inverse: pets, optional: true }", with: "      owners: { destination: Person, toMany: true, inverse: pets, renamedFrom: owner }").replacingOccurrences(of: "inverse: owner", with: "inverse: owners"), exPeople], entities: P)
    }
}
