import ArgumentParser
import Foundation
import ModelMigration

/// Where a fleet's stores come from, and which of them this process takes.
struct FleetStores: ParsableArguments {
    @Argument(
        help: ArgumentHelp(
            "Stores: files, or folders searched (recursively) for files matching --pattern.", valueName: "stores"))
    var stores: [String] = []

    @Option(
        name: .customLong("stores-from"),
        help: ArgumentHelp(
            "A file with one store (or folder) path a line; - reads standard input. May be repeated.", valueName: "file"
        ))
    var storesFrom: [String] = []

    @Option(
        name: .long, help: ArgumentHelp("The file names searched for in folders (fnmatch pattern).", valueName: "glob"))
    var pattern = "*.sqlite"

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Take only shard I of N: the stores whose path hashes to I modulo N (0 ≤ I < N).", valueName: "I/N"))
    var shard: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Take shard $JOB_COMPLETION_INDEX of N (a Kubernetes Indexed Job's pod index).", valueName: "N"))
    var shards: Int?

    /// No store, folder or list given (the command decides whether that is allowed).
    var isEmpty: Bool { stores.isEmpty && storesFrom.isEmpty }

    func validate() throws {
        if storesFrom.filter({ $0 == "-" }).count > 1 {
            throw ValidationError("--stores-from -: standard input can be read once")
        }
        if shard != nil && shards != nil { throw ValidationError("--shard and --shards: give one of them") }
        if let shard, FleetShard(parsing: shard) == nil {
            throw ValidationError("--shard \(shard): expected I/N with 0 ≤ I < N, e.g. 0/4")
        }
        if let shards {
            guard shards >= 1 else { throw ValidationError("--shards must be 1 or more") }
            guard let text = Invocation.current.environment["JOB_COMPLETION_INDEX"] else {
                throw ValidationError(
                    "--shards \(shards): JOB_COMPLETION_INDEX is not set (give --shard I/N outside an Indexed Job)")
            }
            guard let index = Int(text), FleetShard(index: index, count: shards) != nil else {
                throw ValidationError(
                    "--shards \(shards): JOB_COMPLETION_INDEX=\(text) is not a shard index below \(shards)")
            }
        }
    }

    /// The shard this process takes, if any.
    var selectedShard: FleetShard? {
        if let shard { return FleetShard(parsing: shard) }
        if let shards, let text = Invocation.current.environment["JOB_COMPLETION_INDEX"], let index = Int(text) {
            return FleetShard(index: index, count: shards)
        }
        return nil
    }

    /// The stores, listed lazily.
    func list(excluding excluded: [String] = []) -> FleetStoreList {
        var list = FleetStoreList(
            sources: stores.map { .path($0) } + storesFrom.map { .listFile($0) }, pattern: pattern,
            excludedFolders: excluded, shard: selectedShard)
        list.standardInput = Invocation.current.input
        return list
    }

    /// How many stores the list holds (a first walk, for progress), unless it
    /// reads standard input, which can be read once.
    func count(excluding excluded: [String]) -> Int? {
        if storesFrom.contains("-") { return nil }
        var count = 0
        for entry in list(excluding: excluded) {
            if case .unreadable = entry { continue }
            count += 1
        }
        return count
    }
}
