import ModelMigration

/// One JSON Lines record per store.
struct FleetStoreRecord: Encodable {
    var event = "store"
    /// `fleet apply` and `fleet restore`: the run's id (`fleet restore --log … --run ID` undoes a run).
    var run: String?
    var store: String
    var status: String
    var model: String?
    var version: Int?
    var target: Int?
    var seconds: Double
    var rowsTouched: Int64?
    var checksPassed: Int?
    var backup: String?
    /// `fleet restore`: where the replaced store is kept (in `.replaced/` beside it).
    var replaced: String?
    /// `--keep N`: the store's older backups removed (absent without `--keep`).
    var prunedBackups: [String]?
    /// `--keep N`: older files named like the store's backups that were left, with why.
    var backupsLeft: [String]?
    var warnings: [String]?
    var danglingReferences: [String]?
    var duplicateOf: String?
    var message: String?
    /// The SQL statement that failed, when one did (kept out of `message`).
    var statement: String?
    /// `fleet status`: the policies the store's hops name that this `migrate` lacks
    /// (absent when none), as `status` names them.
    var missingPolicies: [String]?
    /// False for a store a stopped run never started (status `interrupted`); absent
    /// for every store it did.
    var started: Bool?

    init(_ outcome: FleetStoreOutcome, missingPolicies: [String] = [], run: String? = nil) {
        self.run = run
        self.missingPolicies = missingPolicies.isEmpty ? nil : missingPolicies
        store = outcome.path
        status = outcome.status.word
        model = outcome.model
        version = outcome.version
        target = outcome.target
        seconds = (outcome.seconds * 1000).rounded() / 1000
        message = outcome.message
        statement = outcome.statement
        duplicateOf = outcome.duplicateOf
        started = outcome.started ? nil : false
        if let result = outcome.result {
            rowsTouched = result.rowsTouched
            checksPassed = result.checksPassed
            backup = result.backup
            prunedBackups = result.prunedBackups
            backupsLeft = result.backupsLeft.isEmpty ? nil : result.backupsLeft
            danglingReferences = result.carriedDanglingReferences
        }
        if let restored = outcome.restored {
            backup = restored.backup
            replaced = restored.replaced
        }
        if !outcome.warnings.isEmpty { warnings = outcome.warnings }
    }
}
