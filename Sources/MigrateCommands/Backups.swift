import ArgumentParser

/// `migrate backups prune`: the backups `apply --backup-dir` keeps.
struct Backups: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Manage the backups apply --backup-dir and fleet apply --backup-dir keep.",
        subcommands: [BackupsPrune.self])
}
