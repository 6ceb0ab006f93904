import ModelMigration

/// One JSON Lines record per store.
struct FleetStoreRecord: Encodable {
    var event = "store"
    var store: String
    var status: String
    var model: String?
    var version: Int?
    var target: Int?
    var seconds: Double
    var rowsTouched: Int64?
    var checksPassed: Int?
    var backup: String?
    var warnings: [String]?
    var danglingReferences: [String]?
    var duplicateOf: String?
    var message: String?
    /// `fleet status`: the policies the store's hops name that this `migrate` lacks
    /// (absent when none), as `status` names them.
    var missingPolicies: [String]?

    init(_ outcome: FleetStoreOutcome, missingPolicies: [String] = []) {
        self.missingPolicies = missingPolicies.isEmpty ? nil : missingPolicies
        store = outcome.path
        status = outcome.status.word
        model = outcome.model
        version = outcome.version
        target = outcome.target
        seconds = (outcome.seconds * 1000).rounded() / 1000
        message = outcome.message
        duplicateOf = outcome.duplicateOf
        if let result = outcome.result {
            rowsTouched = result.rowsTouched
            checksPassed = result.checksPassed
            backup = result.backup
            danglingReferences = result.carriedDanglingReferences
        }
        if !outcome.warnings.isEmpty { warnings = outcome.warnings }
    }
}
