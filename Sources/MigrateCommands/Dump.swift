import ArgumentParser
import DataModel
import Foundation
import JSONLines
import ModelMigration
import SQLiteStore

/// `migrate dump STORE ENTITY`: objects as JSON Lines on stdout.
struct Dump: MigrateCommand {
    static let configuration = CommandConfiguration(
        abstract: """
            Write an entity's objects (and its subentities') as JSON Lines, in primary-key order (members of an \
            ordered list in its order); --all: the whole store.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The store.", valueName: "store"))
    var store: String

    @Argument(help: ArgumentHelp("The entity (left out with --all).", valueName: "entity"))
    var entity: String?

    @Flag(
        name: .long,
        help:
            """
            Every object of the store: each root entity with its subentities, entities named by others first (`load \
            --all` reads it back).
            """
    )
    var all = false

    @Option(name: .long, help: ArgumentHelp("At most this many objects.", valueName: "n"))
    var limit: Int?

    func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more") }
        if all, entity != nil { throw ValidationError("--all dumps every entity: leave out the entity") }
        if all, limit != nil { throw ValidationError("--all dumps every object: --limit does not apply") }
        if !all, entity == nil { throw ValidationError("name the entity to dump, or --all for the whole store") }
    }

    /// Rows of the entity's table whose `Z_ENT` is no entity's number belong to no
    /// entity, so no dump can hold them: a dump kept as a backup would lose them
    /// without a word. Said on stderr, with their keys.
    func warnAboutUnknownEntityRows(_ access: ObjectAccess, entity: String) throws {
        guard let root = access.version.entity(named: entity)?.root, let table = access.layout.table(forEntity: root),
            let keys = try? access.keysOfRowsOfNoEntity(table: root, limit: 6), !keys.isEmpty
        else { return }
        Output.err(
            """
            warning: \(table.name) holds rows whose Z_ENT is no entity's number (Z_PK \
            \(keys.prefix(5).map(String.init).joined(separator: ", "))\(keys.count > 5 ? " and more" : "")); they \
            belong to no entity and are not in this dump
            """)
    }

    func run() throws {
        Output.outputIsTheProduct = true
        let access = try global.openStoreForReading(store, models: global.loadModelsIfPresent(), entity: entity)
        defer { try? access.store.close() }
        let roots = ObjectJSONLines.rootsInReferenceOrder(access)
        do {
            // Progress on stderr, on a terminal and without --json: objects written of
            // the entity's count (a count(*) first, which a long dump can afford).
            let terminal = !global.json && Output.stderrIsTerminal
            let total: Int64? =
                !terminal
                ? nil
                : try entity.map { min(try access.count($0), Int64(limit ?? .max)) }
                    ?? roots.reduce(0) { $0 + (try access.count($1)) }
            let started = Date()
            var lastDraw = started
            let progress = { (written: Int) in
                guard let total else { return }
                let now = Date()
                guard now.timeIntervalSince(lastDraw) >= 0.1 else { return }
                lastDraw = now
                let estimate = ProgressEstimate(
                    done: Int64(written), total: total, elapsed: now.timeIntervalSince(started))
                Output.progress(estimate.text(unit: "objects"))
            }
            if let entity {
                try ObjectJSONLines.dump(
                    access, entity: entity, limit: limit, progress: progress, writeChunk: Output.writeBytes)
            } else {
                try ObjectJSONLines.dumpAll(access, progress: progress, writeChunk: Output.writeBytes)
            }
            if terminal { Output.progress(nil) }
            if limit == nil {
                for name in entity.map({ [$0] }) ?? roots { try warnAboutUnknownEntityRows(access, entity: name) }
            }
        } catch let error as StoreError {
            throw global.fail(error)
        }
    }
}
