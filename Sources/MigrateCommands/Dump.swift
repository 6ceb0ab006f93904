import ArgumentParser
import Foundation
import ModelMigration

/// `migrate dump STORE ENTITY`: objects as JSON Lines on stdout.
struct Dump: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write an entity's objects (and its subentities') as JSON Lines, in primary-key order.")

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The store.", valueName: "store"))
    var store: String

    @Argument(help: ArgumentHelp("The entity.", valueName: "entity"))
    var entity: String

    @Option(name: .long, help: ArgumentHelp("At most this many objects.", valueName: "n"))
    var limit: Int?

    func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more") }
    }

    func run() throws {
        let access = try global.openStoreForReading(store, models: global.loadModelsIfPresent(), entity: entity)
        defer { try? access.store.close() }
        do {
            // Progress on stderr, on a terminal and without --json: objects written of
            // the entity's count (a count(*) first, which a long dump can afford).
            let terminal = !global.json && Output.stderrIsTerminal
            let total = terminal ? min(try access.count(entity), Int64(limit ?? .max)) : nil
            let started = Date()
            var lastDraw = started
            try ObjectJSONLines.dump(access, entity: entity, limit: limit, progress: { written in
                guard let total else { return }
                let now = Date()
                guard now.timeIntervalSince(lastDraw) >= 0.1 else { return }
                lastDraw = now
                let estimate = ProgressEstimate(done: Int64(written), total: total, elapsed: now.timeIntervalSince(started))
                Output.errRaw("\r\u{1B}[K" + estimate.text(unit: "objects"))
            }, writeChunk: Output.writeBytes)
            if terminal { Output.errRaw("\r\u{1B}[K") }
        } catch let error as StoreError {
            throw global.fail("\(error)", ExitStatus.failure)
        }
    }
}
