import DataModel
import Mapping
import SQLiteStore

extension SegmentPlanner {
    /// True when no entity mapping of the hop makes objects from `entity`'s own
    /// objects: it is removed (by inference or a mapping file) or nothing reads it.
    func isUnread(_ entity: CompiledEntity) -> Bool {
        mapping.mappings(fromSource: entity.name).isEmpty
    }

    /// A source entity whose objects no mapping reads while the destination gives its
    /// name to objects made from another entity (`Listening` made from `Record`, by a
    /// mapping file or by `renamedFrom`), and the store holds objects of it: they
    /// would vanish, and references to them would keep keys that now name the other
    /// entity's objects. The hop is refused (exit 4), naming the entity and count.
    mutating func refuseReplacedEntities() throws {
        for entity in source.entities where isUnread(entity) {
            guard let madeFrom = mapping.mapping(forDestination: entity.name)?.source, madeFrom != entity.name,
                let number = sourceLayout.entityNumbers[entity.name],
                let table = sourceLayout.table(forEntity: entity.root)
            else { continue }
            let rows = try count(table.name, [number])
            guard rows != 0 else { continue }
            let held = rows == RowCounter.notCounted ? "objects" : "\(rows) object\(rows == 1 ? "" : "s")"
            let file = "Migrations/\(destination.model)/\(source.version)-to-\(destination.version).yaml"
            throw PlanningError(
                .noPath,
                """
                \(entity.name): the store holds \(held) of version \(source.version)'s \(entity.name), which no entity mapping of this hop \
                reads, while version \(destination.version)'s \(entity.name) is made from \(madeFrom): they would be lost, and references \
                to them would name \(madeFrom)'s objects; map them in \(file) (into another entity, or alongside), or delete them first
                """)
        }
    }

    /// Every source entity no mapping reads, holding objects of its own, is a
    /// destructive warning, whichever step drops its rows (a table dropped whole
    /// warns nowhere else).
    mutating func warnUnreadEntities() throws {
        for entity in source.entities where isUnread(entity) {
            let prefix = "entity \(entity.name) is removed: "
            guard !warnings.contains(where: { $0.message.hasPrefix(prefix) || $0.message.hasSuffix("(entity \(entity.name) removed)") }),
                let number = sourceLayout.entityNumbers[entity.name],
                let table = sourceLayout.table(forEntity: entity.root)
            else { continue }
            let rows = try count(table.name, [number])
            guard rows != 0 else { continue }
            let held = rows == RowCounter.notCounted ? "rows are" : "\(rows) row\(rows == 1 ? " is" : "s are")"
            warnings.append(MigrationWarning(message: "\(prefix)its \(held) deleted", isDestructive: true))
        }
    }
}
