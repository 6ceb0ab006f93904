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
    /// mapping file or by `renamedFrom`): its stored objects would vanish, and
    /// references to them would keep keys that now name the other entity's objects.
    /// A requirement of the hop, judged on the store as the hop finds it (an earlier
    /// hop's filter may have left none): any, and the hop is refused (exit 4).
    mutating func refuseReplacedEntities() throws {
        for entity in source.entities where isUnread(entity) {
            guard let madeFrom = mapping.mapping(forDestination: entity.name)?.source, madeFrom != entity.name,
                let number = sourceLayout.entityNumbers[entity.name],
                let table = sourceLayout.table(forEntity: entity.root)
            else { continue }
            let file = "Migrations/\(destination.model)/\(source.version)-to-\(destination.version).yaml"
            requirements.append(
                MigrationCheck(
                    summary: """
                        \(entity.name): the store holds objects of version \(source.version)'s \(entity.name), which \
                        no entity mapping of this hop reads, while version \(destination.version)'s \(entity.name) is \
                        made from \(madeFrom): they would be lost, and references to them would name \(madeFrom)'s \
                        objects
                        """,
                    sql: "SELECT count(*) FROM \(SQLText.q(table.name)) WHERE Z_ENT = \(number)",
                    rowsSQL:
                        """
                        SELECT 'Z_PK ' || Z_PK FROM \(SQLText.q(table.name)) WHERE Z_ENT = \(number) ORDER BY Z_PK \
                        LIMIT 5
                        """,
                    remedy: "map them in \(file) (into another entity, or alongside), or delete them first"))
        }
    }

    /// Every source entity no mapping reads, holding objects of its own, is a
    /// destructive warning, whichever step drops its rows (a table dropped whole
    /// warns nowhere else).
    mutating func warnUnreadEntities() throws {
        for entity in source.entities where isUnread(entity) {
            let prefix = "entity \(entity.name) is removed: "
            // Counted already: removed, its table dropped, or its objects left out by a
            // filter (`FALSEPREDICATE` leaves every one out; its warning says so).
            guard
                !warnings.contains(where: {
                    $0.message.hasPrefix(prefix) || $0.message.hasSuffix("(entity \(entity.name) removed)")
                        || ($0.isDestructive && $0.subject == entity.name)
                }),
                let number = sourceLayout.entityNumbers[entity.name],
                let table = sourceLayout.table(forEntity: entity.root)
            else { continue }
            let rows = try count(table.name, [number])
            guard rows != 0 else { continue }
            let held = rows < 0 ? "rows are" : "\(rows) row\(rows == 1 ? " is" : "s are")"
            warnings.append(
                MigrationWarning(
                    message: "\(prefix)its \(held) deleted", isDestructive: true, subject: entity.name,
                    count: rows < 0 ? nil : rows))
        }
    }
}
