import DataModel
import Foundation
import Mapping
import SQLiteStore

/// What the planner asks before choosing a path: whether the store holds objects
/// of an entity, and whether every step the app maps has its mapping file.
extension MigrationPlanner {
    /// Whether the store holds no objects of a source entity itself (its
    /// subentities' objects are made by mappings of their own, each with its own
    /// property mappings), asked once per entity and only for entities inference
    /// would otherwise refuse a new required attribute on (`MappingResolver.resolve`).
    static func emptiness(of source: CompiledVersion, layout: StorageLayout, store: Store) -> (String) -> Bool {
        let answers = Locked<[String: Bool]>([:])
        return { name in
            if let known = answers.withLock({ $0[name] }) { return known }
            guard let entity = source.entity(named: name), let table = layout.table(forEntity: entity.root) else {
                return false
            }
            guard let number = layout.entityNumbers[name] else { return false }
            let held = try? store.connection.scalarInt64(
                "SELECT EXISTS (SELECT 1 FROM \(SQLText.q(table.name)) WHERE Z_ENT = \(number))")
            let empty = held == 0
            answers.withLock { $0[name] = empty }
            return empty
        }
    }

    /// A step the app ships a mapping model for (`mappedFrom:` in the later version,
    /// written by `migrate import`) is never inferred: when its mapping file is not
    /// in the migrations folder (a deploy pointing at the wrong folder, an import
    /// that could not convert the mapping model), every migration across it is
    /// refused, exit 4, whatever path would have been taken. Inferring it, or going
    /// around it, would skip what the mapping model and its policies do.
    func requireMappedSteps(model: CompiledModel, source: CompiledVersion, target: Int, files: MappingFiles) throws {
        var missing: [String] = []
        for version in model.versions where version.version > source.version && version.version <= target {
            for from in version.mappedFrom ?? []
            where from >= source.version && files.file(from: from, to: version.version) == nil {
                missing.append(
                    "\(from) → \(version.version): \(migrationsFolder)/\(model.name)/\(from)-to-\(version.version).yaml"
                )
            }
        }
        guard !missing.isEmpty else { return }
        throw PlanningError(
            .noPath,
            """
            the app ships a mapping model for \(missing.count == 1 ? "this step" : "these steps") (mappedFrom: in the \
            model), and its mapping file is not found, so the step is never inferred:
            \(missing.map { "  " + $0 }.joined(separator: "\n"))
            remedy: point --migrations at the folder `migrate import --mapping-models` wrote, or import the mapping \
            model again
            """)
    }
}
