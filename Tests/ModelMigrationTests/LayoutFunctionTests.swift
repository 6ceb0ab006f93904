import Foundation
import ModelMigration
import SQLiteStore
import TestSupport
import Testing

/// A store's layout is a function of its version: whatever its history, a store
/// migrated to version N has the tables, columns, indexes and join-table sides of
/// a store created at N (entity numbers aside: this toolkit's stores keep theirs
/// for life).
@Suite struct LayoutFunctionTests {
    /// A small deterministic generator (SplitMix64).
    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
        mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
    }

    /// One version of a generated model.
    struct Entity {
        var name: String
        var renamedFrom: String?
        var parent: String?
        var attributes: [(name: String, type: String, renamedFrom: String?, indexed: Bool)]
        var toMany: [(name: String, destination: String, inverse: String, renamedFrom: String?)] = []
    }

    /// Random versions: entities renamed, attributes added, renamed, removed and
    /// indexed, many-to-many pairs added and renamed, a child entity added.
    static func versions(seed: UInt64) -> [String] {
        var random = Random(state: seed)
        let pool = ["Alpha", "Book", "Card", "Deck", "Echo", "Fern", "Gate", "Hill"]
        var entities = pool.prefix(3 + random.below(2)).map {
            Entity(name: $0, attributes: [("title", "string?", nil, false)])
        }
        var texts: [String] = []
        var counter = 0
        let count = 3 + random.below(2)
        for version in 1...count {
            if version > 1 {
                for index in entities.indices {
                    entities[index].renamedFrom = nil
                    for a in entities[index].attributes.indices { entities[index].attributes[a].renamedFrom = nil }
                    for r in entities[index].toMany.indices { entities[index].toMany[r].renamedFrom = nil }
                }
                for _ in 0..<(1 + random.below(3)) {
                    counter += 1
                    let index = random.below(entities.count)
                    switch random.below(7) {
                    case 0
                    where entities[index].parent == nil
                        && !entities.contains(where: { $0.parent == entities[index].name }):
                        // Rename an entity (its relationships' destinations follow).
                        let old = entities[index].name
                        let new =
                            pool.first { name in
                                !entities.contains { $0.name == name || $0.renamedFrom == name } && name != old
                            } ?? "Zeta\(counter)"
                        entities[index].name = new
                        entities[index].renamedFrom = old
                        for e in entities.indices {
                            for r in entities[e].toMany.indices where entities[e].toMany[r].destination == old {
                                entities[e].toMany[r].destination = new
                            }
                        }
                    case 1:
                        entities[index].attributes.append(
                            (
                                "field\(counter)", ["string?", "integer32?", "double?"][random.below(3)], nil,
                                random.chance(30)
                            ))
                    case 2 where entities[index].attributes.count > 1:
                        let a = 1 + random.below(entities[index].attributes.count - 1)
                        entities[index].attributes[a].renamedFrom = entities[index].attributes[a].name
                        entities[index].attributes[a].name = "renamed\(counter)"
                    case 3 where entities[index].attributes.count > 1:
                        entities[index].attributes.remove(at: 1 + random.below(entities[index].attributes.count - 1))
                    case 4:
                        // A many-to-many pair with another root entity.
                        let others = entities.indices.filter { $0 != index && entities[$0].parent == nil }
                        guard entities[index].parent == nil,
                            let other = others.isEmpty ? nil : others[random.below(others.count)]
                        else { continue }
                        let mine = "links\(counter)", theirs = "backs\(counter)"
                        entities[index].toMany.append((mine, entities[other].name, theirs, nil))
                        entities[other].toMany.append((theirs, entities[index].name, mine, nil))
                    case 5 where entities.contains(where: { !$0.toMany.isEmpty }):
                        // Rename one side of a pair.
                        let owner = entities.indices.filter { !entities[$0].toMany.isEmpty }[0]
                        let r = entities[owner].toMany[0]
                        let new = "renamedLinks\(counter)"
                        entities[owner].toMany[0].renamedFrom = r.name
                        entities[owner].toMany[0].name = new
                        if let other = entities.firstIndex(where: { $0.name == r.destination }),
                            let back = entities[other].toMany.firstIndex(where: { $0.name == r.inverse })
                        {
                            entities[other].toMany[back].inverse = new
                        }
                    case 6 where entities.count < 6 && entities[index].parent == nil:
                        let name =
                            pool.first { name in !entities.contains { $0.name == name || $0.renamedFrom == name } }
                            ?? "Kid\(counter)"
                        entities.append(
                            Entity(
                                name: name, parent: entities[index].name,
                                attributes: [("extra\(counter)", "string?", nil, false)]))
                    default:
                        entities[index].attributes[0].indexed.toggle()
                    }
                }
            }
            var lines = ["entities:"]
            for entity in entities {
                lines.append("  \(entity.name):")
                if let parent = entity.parent { lines.append("    parent: \(parent)") }
                if let old = entity.renamedFrom { lines.append("    renamedFrom: \(old)") }
                lines.append("    attributes:")
                for a in entity.attributes {
                    let optional = a.type.hasSuffix("?")
                    let type = optional ? String(a.type.dropLast()) : a.type
                    var keys = ["type: \(type)", "optional: \(optional)"]
                    if a.indexed { keys.append("indexed: true") }
                    if let old = a.renamedFrom { keys.append("renamedFrom: \(old)") }
                    lines.append("      \(a.name): { \(keys.joined(separator: ", ")) }")
                }
                if !entity.toMany.isEmpty {
                    lines.append("    relationships:")
                    for r in entity.toMany {
                        lines.append(
                            """
                                  \(r.name): { destination: \(r.destination), toMany: true, inverse: \(r.inverse)\
                            \(r.renamedFrom.map { ", renamedFrom: \($0)" } ?? "") }
                            """)
                    }
                }
            }
            texts.append(lines.joined(separator: "\n") + "\n")
        }
        return texts
    }

    /// The schema with entity numbers replaced by entity names, as sorted lines:
    /// tables with their columns (in order) and indexes with their columns.
    static func normalizedSchema(_ path: String) throws -> [String] {
        let connection = try Connection(path: path, mode: .readOnly)
        defer { try? connection.close() }
        var names: [Int64: String] = [:]
        for row in try connection.prepare("SELECT Z_ENT, Z_NAME FROM Z_PRIMARYKEY").rows() {
            if let n = row[0].int64, let name = row[1].string { names[n] = name }
        }
        func normalize(_ text: String) -> String {
            // Z_<n>…, Z<n>_… and Z<n><NAME>: the number is an entity's.
            var result = ""
            var chars = Array(text)
            var i = 0
            while i < chars.count {
                if chars[i] == "Z", i + 1 < chars.count {
                    var j = i + 1
                    let underscore = chars[j] == "_"
                    if underscore { j += 1 }
                    var digits = ""
                    while j < chars.count, chars[j].isNumber {
                        digits.append(chars[j])
                        j += 1
                    }
                    if !digits.isEmpty, let n = Int64(digits), let name = names[n],
                        underscore || (j < chars.count && (chars[j] == "_" || chars[j].isUppercase))
                    {
                        result += "Z_<\(name)>"
                        i = j
                        continue
                    }
                }
                result.append(chars[i])
                i += 1
            }
            chars = []
            return result
        }
        var lines: [String] = []
        for table in try connection.tables() where !table.hasPrefix("Z_") || table.first(where: { $0.isNumber }) != nil
        {
            guard table != "Z_PRIMARYKEY", table != "Z_METADATA", table != "Z_MODELCACHE", !table.hasPrefix("MM_")
            else { continue }
            let columns = try connection.columns(of: table).map { normalize($0.name) }
            lines.append("table \(normalize(table)): \(columns.sorted().joined(separator: ", "))")
        }
        for row in try connection.prepare(
            "SELECT name, tbl_name FROM sqlite_schema WHERE type = 'index' AND name NOT LIKE 'sqlite_autoindex%'"
        ).rows() {
            guard let name = row[0].string, let table = row[1].string else { continue }
            let info = try connection.prepare("SELECT name FROM pragma_index_info(?)")
            try info.bind([.text(name)])
            let columns = try info.rows().compactMap { $0[0].string }.map(normalize)
            lines.append("index \(normalize(name)) on \(normalize(table)) (\(columns.joined(separator: ", ")))")
        }
        return lines.sorted()
    }

    /// Renaming an entity of a many-to-many pair can move the side that names the
    /// join table (Item sorts before Tag, Widget after it): the migrated store's
    /// join table moves too, keeping every pair, as a store created at version 2.
    @Test func aRenameThatMovesTheJoinTableSideMovesIt() throws {
        let v1 = """
            entities:
              Item:
                attributes: { name: string }
                relationships:
                  tags: { destination: Tag, toMany: true, inverse: items }
              Tag:
                attributes: { label: string }
                relationships:
                  items: { destination: Item, toMany: true, inverse: tags }

            """
        let v2 = v1.replacingOccurrences(of: "  Item:\n", with: "  Widget:\n    renamedFrom: Item\n")
            .replacingOccurrences(of: "destination: Item", with: "destination: Widget")
        let migrated = try MigrationScenario("Shop", versions: [v1, v2])
        let fresh = try MigrationScenario("Shop", versions: [v1, v2], storeVersion: 2)
        defer {
            migrated.remove()
            fresh.remove()
        }
        try migrated.withObjects { o in
            try o.insert("Tag", values: ["label": .string("red")])
            try o.insert("Tag", values: ["label": .string("blue")])
            try o.insert("Item", values: ["name": .string("cup")], relationships: ["tags": [1, 2]])
            try o.insert("Item", values: ["name": .string("pen")], relationships: ["tags": [2]])
        }
        #expect(try migrated.tables().contains("Z_1TAGS"))
        try migrated.migrate(verify: true)
        #expect(try Self.normalizedSchema(migrated.storePath) == Self.normalizedSchema(fresh.storePath))
        #expect(try migrated.tables().contains("Z_2ITEMS"))
        #expect(try migrated.fetch("Widget").map { $0.relationships["tags"] ?? [] } == [[1, 2], [2]])
        #expect(try migrated.fetch("Tag").map { $0.relationships["items"] ?? [] } == [[1], [1, 2]])
    }

    /// Stores made at a random version of a random model and migrated to its last
    /// version have the schema of a store created at that version.
    @Test(arguments: Array(UInt64(1)...UInt64(SlowTrials.enabled ? 40 : 10)))
    func aMigratedStoreHasTheLayoutOfAFreshOne(seed: UInt64) throws {
        let versions = Self.versions(seed: seed)
        let start = 1 + Int(seed % UInt64(versions.count - 1))
        let migrated = try MigrationScenario("Gen", versions: versions, storeVersion: start)
        let fresh = try MigrationScenario("Gen", versions: versions, storeVersion: versions.count)
        defer {
            migrated.remove()
            fresh.remove()
        }
        do {
            try migrated.migrate()
        } catch {
            Issue.record(
                """
                seed \(seed), from version \(start): \
                \(error)\n\(versions.enumerated().map { "--- \($0.offset + 1)\n\($0.element)" }.joined())
                """
            )
            return
        }
        #expect(try migrated.storeVersion() == versions.count)
        let a = try Self.normalizedSchema(migrated.storePath), b = try Self.normalizedSchema(fresh.storePath)
        #expect(
            a == b,
            """
            seed \(seed), from version \(start):
            \(versions.enumerated().map { "--- \($0.offset + 1)\n\($0.element)" }.joined())
            migrated only: \(a.filter { !b.contains($0) })
            fresh only: \(b.filter { !a.contains($0) })
            """)
    }
}
