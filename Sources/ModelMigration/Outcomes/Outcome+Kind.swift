extension Outcome {
    /// The one table of outcomes: each kind's exit code, JSON status word and
    /// meaning. Exit codes are part of the interface (the README's "Exit codes"
    /// lists them with the words); a word, once chosen, keeps its meaning.
    public enum Kind: Sendable, Hashable {
        /// At the target version already: nothing to do (exit 0).
        case current
        /// Migrated, committed (exit 0).
        case migrated
        /// Would be migrated: a dry run, rolled back (exit 0).
        case wouldMigrate
        /// A migration is needed and possible: the answer of `status` and `fleet
        /// status` (exit 3; `plan` and `fleet plan` answer with the plan, exit 0).
        case migrationNeeded
        /// No migration path: inference refuses a hop and no mapping file covers it,
        /// a policy is missing, or the store's data decides against a hop (exit 4).
        case noPath
        /// The store's version is not among the models (exit 5).
        case unknownVersion
        /// `--fail-on-destructive` refused a plan that loses data; nothing was
        /// changed (exit 6).
        case destructive
        /// Anything else went wrong; a store is left as it was (exit 1).
        case failed
        /// The command was asked something that does not fit: an unknown version,
        /// entity, predicate or option value (exit 64).
        case usage
        /// Stopped by a signal; the work under way rolled back (exit 128 + signal).
        case interrupted(signal: Int32)
        /// A fleet's path that reaches a store file listed before it: not handled
        /// again (exit 0: it changes no exit code).
        case duplicate
        /// (`fleet restore`) Put back from the backup a run took; the store it
        /// replaced is kept (exit 0).
        case restored
        /// A fleet's listed path that names a backup copy or a store `restore`
        /// replaced: never a store, never migrated (exit 0: it changes no exit code).
        case notAStore

        /// Every kind, in the order of the README's table (`interrupted`
        /// with SIGINT, 2).
        public static let all: [Kind] = [
            .current, .migrated, .wouldMigrate, .migrationNeeded, .noPath, .unknownVersion, .destructive,
            .failed, .usage, .interrupted(signal: 2), .duplicate, .restored, .notAStore,
        ]

        /// The table itself: exit code, word, meaning.
        private var row: (exitCode: Int32, word: String, meaning: String) {
            switch self {
            case .current: (0, "current", "at the target version; nothing to do")
            case .migrated: (0, "migrated", "migrated and committed")
            case .wouldMigrate: (0, "would-migrate", "would be migrated (dry run, rolled back)")
            case .migrationNeeded: (3, "migration-needed", "a migration is needed and possible")
            case .noPath: (4, "no-path", "no migration path")
            case .unknownVersion: (5, "unknown-version", "the store's version is not among the models")
            case .destructive: (6, "destructive", "the plan loses data (--fail-on-destructive); nothing was changed")
            case .failed: (1, "failed", "failed; the store is unchanged")
            case .usage: (64, "usage", "usage error")
            case .interrupted(let signal):
                (128 + signal, "interrupted", "stopped by signal \(signal); rolled back, the store is unchanged")
            case .duplicate: (0, "duplicate", "the same store file as a path listed before it; handled once")
            case .restored: (0, "restored", "put back from its backup; the replaced store is kept")
            case .notAStore: (0, "not-a-store", "a backup copy or a store restore replaced: never migrated")
            }
        }

        /// The process's exit code.
        public var exitCode: Int32 { row.exitCode }
        /// The JSON status word (`status` in every JSON output).
        public var word: String { row.word }
        /// What the kind means, for people (a message when nothing more is known).
        public var meaning: String { row.meaning }

        /// True for failures and refusals: not a success, and not an answer such
        /// as `migration-needed`.
        public var isFailure: Bool {
            switch self {
            case .current, .migrated, .wouldMigrate, .migrationNeeded, .duplicate, .restored, .notAStore: false
            case .noPath, .unknownVersion, .destructive, .failed, .usage, .interrupted: true
            }
        }

        /// How much the kind weighs when many outcomes make one exit code (a fleet):
        /// the heaviest wins. A signal stops the run; a gate refuses all of it; then
        /// failures, unknown versions, missing paths; then `migration-needed`.
        public var weight: Int {
            switch self {
            case .current, .migrated, .wouldMigrate, .duplicate, .restored, .notAStore: 0
            case .migrationNeeded: 1
            case .noPath: 2
            case .unknownVersion: 3
            case .failed, .usage: 4
            case .destructive: 5
            case .interrupted: 6
            }
        }
    }
}
