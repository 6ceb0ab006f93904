import ArgumentParser
import DataModel
import Foundation
import ModelMigration
import SQLiteStore

/// `migrate inspect STORE`: what a store holds, read-only.
struct Inspect: MigrateCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show a store's metadata, version, entities, row counts, layout and migration history (read-only).",
        discussion:
            """
            Reads stores written by this toolkit and by Apple's Core Data. Exit 0; 1 when the file is not a readable \
            store.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The store.", valueName: "store"))
    var store: String

    @Flag(name: .long, help: "Also list every table's columns and indexes.")
    var layout = false

    func run() throws {
        let models = global.loadModelsIfPresent()
        let report: StoreReport
        do {
            let opened = try Store.open(path: store, access: .readOnly)
            report = StoreReport(inspection: try opened.inspect(), models: models)
            try opened.close()
        } catch {
            throw global.fail(error)
        }
        if global.json {
            try Output.json(report)
            return
        }
        Output.out(Self.render(report, showLayout: layout))
    }

    static func render(_ report: StoreReport, showLayout: Bool) -> String {
        var lines: [String] = []
        lines.append("store:      \(report.path) (\(report.fileSize) bytes, journal \(report.journalMode))")
        switch report.writtenBy {
        case "toolkit": lines.append("written by: this toolkit")
        case "core-data":
            lines.append(
                "written by: Apple Core Data (framework version \(report.frameworkVersion.map(String.init) ?? "?"))")
        default: lines.append("written by: unknown (no framework version, no toolkit keys)")
        }
        lines.append("uuid:       \(report.storeUUID)")
        let identifiers =
            report.versionIdentifiers.isEmpty
            ? "" : " (identifiers: \(report.versionIdentifiers.joined(separator: ", ")))"
        if let version = report.recognizedVersion {
            lines.append("model:      \(report.model ?? "?") version \(version)\(identifiers)")
        } else {
            let stamped = report.stampedVersion.map { ", stamped version \($0)" } ?? ""
            lines.append("model:      \(report.model ?? "?"): version not recognised\(stamped)\(identifiers)")
        }
        if let layoutHash = report.layoutHash { lines.append("layout:     \(layoutHash.prefix(16))…") }
        lines.append("")
        lines += entityLines(report)
        if let problem = report.problem {
            lines.append("")
            lines.append("warning: " + problem.replacingOccurrences(of: "\n", with: "\n  "))
        }
        lines.append("")
        lines.append("tables:")
        for table in report.tables {
            lines.append(
                """
                  \(table.name) (\(table.rowCount) rows, \(table.columns.count) columns, \(table.indexes.count) indexes)
                """
            )
            if showLayout {
                lines.append("    columns: " + table.columns.map { "\($0.name) \($0.type)" }.joined(separator: ", "))
                for index in table.indexes {
                    lines.append(
                        """
                            \(index.isUnique ? "unique " : "")index \(index.name) \
                        (\(index.columns.joined(separator: ", ")))
                        """
                    )
                }
            }
        }
        lines.append("")
        if report.history.isEmpty {
            lines.append("history:    no migrations recorded")
        } else {
            lines.append("history:")
            for record in report.history {
                lines.append(
                    """
                      \(ISO8601.format(secondsSinceReferenceDate: record.date))  \(record.fromVersion) → \
                    \(record.toVersion)  \(String(format: "%.3f", record.duration)) s  \(record.rowsTouched) rows  \
                    \(record.tool)
                    """)
            }
        }
        if !report.otherMetadata.isEmpty {
            lines.append("")
            lines.append("other metadata:")
            for key in report.otherMetadata.keys.sorted() {
                lines.append(
                    "  \(key): \(Self.meanings[key] ?? "not a key this toolkit or Core Data documents; kept as it is")")
            }
        }
        lines.append("")
        lines.append(
            """
            hash: each entity's version hash (Core Data's NSEntityDescription.versionHash), first 8 hex digits; \
            matches: the model versions with that hash. \
            layout: this toolkit's hash of indexes, defaults and other layout facts Core Data does not hash.
            """)
        return lines.joined(separator: "\n")
    }

    /// The entity table of `inspect`: number, name, rows, hash and which versions have it.
    static func entityLines(_ report: StoreReport) -> [String] {
        var lines: [String] = []
        let nameWidth = max(6, report.entities.map(\.name.count).max() ?? 0)
        lines.append(
            """
              Z_ENT  \("entity".padding(toLength: nameWidth, withPad: " ", startingAt: 0))  \("rows".leftPad(9))  hash \
                 matches
            """
        )
        for entity in report.entities {
            let match: String
            switch entity.matches {
            case true?:
                match =
                    "yes"
                    + (entity.matchingVersions.isEmpty
                        ? "" : " (versions \(entity.matchingVersions.map(String.init).joined(separator: ", ")))")
            case false?:
                match =
                    entity.matchingVersions.isEmpty
                    ? "NO (no version has this hash)"
                    : "NO (matches versions \(entity.matchingVersions.map(String.init).joined(separator: ", ")))"
            case nil: match = "-"
            }
            let parent = entity.parent.map { " : \($0)" } ?? ""
            lines.append(
                """
                  \(String(entity.number).leftPad(5))  \
                \(entity.name.padding(toLength: nameWidth, withPad: " ", startingAt: 0))  \
                \((entity.rows.map(String.init) ?? "-").leftPad(9))  \
                \(entity.storedHash.map { String($0.prefix(8)) } ?? "--------")  \(match)\(parent)
                """)
        }
        return lines
    }

    /// What the metadata keys `inspect` lists under "other metadata" mean.
    static let meanings: [String: String] = [
        "MMMaxEntityNumber":
            """
        the highest entity number this store has ever used; numbers of removed entities are never given to new ones
        """,
        "MMCoreDataNumbering":
            """
        the store follows Core Data's entity numbering (made for or by Core Data); migrations renumber as Core Data \
        would
        """,
        "NSPersistenceFrameworkVersion": "the Core Data framework version that last wrote the store",
        "NSStoreModelVersionHashesDigest": "SHA-512 over every entity's name and version hash",
        "NSStoreModelVersionChecksumKey": "Core Data's checksum of the model (Xcode 12 and later); not used here",
        "NSAutoVacuumLevel": "Core Data's auto-vacuum setting",
        "_NSAutoVacuumLevel": "Core Data's auto-vacuum setting",
        "NSStoreModelVersionHashesVersion": "the version hash scheme (3)",
        "NSStoreModelVersionIdentifiers": "the model version identifiers (`identifier:` in the YAML)",
        "NSPersistentStoreConnectionPoolMaxSizeKey": "Core Data's connection pool size when the store was written",
        "NSPersistentHistoryTrackingKey": "persistent history tracking was on",
        "NSPersistentStoreRemoteChangeNotificationOptionKey": "remote change notifications were on",
    ]
}

extension String {
    func leftPad(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
