import ModelMigration

/// The closing JSON Lines record.
struct FleetSummaryRecord: Encodable {
    var event = "summary"
    var command: String
    /// `fleet apply` and `fleet restore`: this run's id.
    var run: String?
    /// `fleet restore --log`: the id of the run undone.
    var undoes: String?
    var shard: String?
    var exitCode: Int32
    var tally: FleetTally
    var versions: [VersionCount]?
    var chains: [ChainRecord]?

    struct VersionCount: Encodable {
        var model: String
        var version: Int
        var target: Int
        var stores: Int
        var status: String
    }

    struct ChainRecord: Encodable {
        var model: String
        var from: Int
        var to: Int
        var stores: Int
        var example: String
        var steps: [String]
        var warnings: [String]
    }
}
