import ArgumentParser
import DataModel
import Foundation
import JSONLines
import ModelMigration
import SQLiteStore

/// `migrate fetch STORE ENTITY`: Core Data's `NSFetchRequest`, read-only.
struct Fetch: MigrateCommand {
    static let configuration = CommandConfiguration(
        abstract: "Fetch objects with a Core Data predicate, sorted, limited (read-only).",
        discussion: """
            Objects of subentities are included and labelled with their entity unless --no-subentities. \
            A table on a terminal, JSON Lines with --json; rows stream, so memory does not grow with the result. \
            A store at an older version is read at its own version (stderr says so). \
            Exit 0; 5 when its version is unknown; 64 for a predicate or key that does not fit the model.
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The store.", valueName: "store"))
    var store: String

    @Argument(help: ArgumentHelp("The entity.", valueName: "entity"))
    var entity: String

    @Option(
        name: .customLong("where"),
        help: ArgumentHelp(
            """
            A predicate in Core Data's format syntax (Docs/Predicates.md), e.g. "visits >= 10 AND city.name ==[c] \
            'oslo'".
            """, valueName: "predicate"))
    var predicate: String?

    // Unconditional: `--sort -price` is a value, not an option.
    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp(
            "Sort keys, comma-separated key paths; a leading - sorts descending (name,-visits).", valueName: "keys"))
    var sort: String?

    @Option(
        name: .long,
        help: ArgumentHelp("At most this many objects (0: no limit, as NSFetchRequest's fetchLimit).", valueName: "n"))
    var limit: Int?

    @Option(name: .long, help: ArgumentHelp("Skip this many objects first.", valueName: "n"))
    var offset: Int?

    @Flag(name: .long, help: "Print only the number of objects.")
    var count = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            """
            Key paths or expressions to show, comma-separated (default: every stored attribute and to-one relationship).
            """,
            valueName: "keys"))
    var properties: String?

    @Flag(name: .customLong("no-subentities"), help: "Leave out objects of subentities.")
    var noSubentities = false

    func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more") }
        if let offset, offset < 0 { throw ValidationError("--offset must be 0 or more") }
        if count, properties != nil { throw ValidationError("--count prints a number; leave out --properties") }
    }

    var request: FetchRequest {
        var request = FetchRequest(entity: entity)
        request.predicate = predicate
        request.sortKeys = Self.list(sort).map {
            $0.hasPrefix("-")
                ? .init(String($0.dropFirst()), ascending: false)
                : .init($0.hasPrefix("+") ? String($0.dropFirst()) : $0)
        }
        // NSFetchRequest.fetchLimit 0 means no limit, not no objects.
        request.limit = limit == 0 ? nil : limit
        request.offset = offset
        request.includesSubentities = !noSubentities
        request.properties = properties.map { Self.list($0) }
        return request
    }

    /// Comma-separated items, commas inside quotes or parentheses kept.
    static func list(_ text: String?) -> [String] {
        guard let text else { return [] }
        var items: [String] = [], current = "", depth = 0, quote: Character?
        for c in text {
            if let q = quote {
                current.append(c)
                if c == q { quote = nil }
                continue
            }
            switch c {
            case "'", "\"":
                quote = c
                current.append(c)
            case "(", "{":
                depth += 1
                current.append(c)
            case ")", "}":
                depth -= 1
                current.append(c)
            case "," where depth == 0:
                items.append(current.trimmingCharacters(in: .whitespaces))
                current = ""
            default: current.append(c)
            }
        }
        items.append(current.trimmingCharacters(in: .whitespaces))
        return items.filter { !$0.isEmpty }
    }

    func run() throws {
        Output.outputIsTheProduct = true
        let access = try global.openStoreForReading(store, models: try global.loadModels(), entity: entity)
        defer { try? access.store.close() }
        let requests = StoreRequests(access: access)
        do {
            if count {
                let n = try requests.count(request)
                if global.json { Output.jsonLine(["count": n]) } else { Output.out(String(n)) }
                return
            }
            let columns = try requests.compile(request).columns
            let labelled = !noSubentities && access.version.subtree(of: entity).count > 1
            if global.json {
                var buffer = ""
                try requests.fetch(request) { row in
                    buffer += try FetchRendering.jsonLine(row, columns: columns, store: store) + "\n"
                    if buffer.utf8.count > 1 << 16 {
                        Output.write(buffer)
                        buffer = ""
                    }
                }
                Output.write(buffer)
            } else {
                var table = FetchRendering.Table(columns: columns, labelled: labelled)
                try requests.fetch(request) { row in table.add(row) }
                table.finish()
            }
        } catch let error as RequestError {
            throw global.fail(error)
        }
    }
}

/// How fetched rows are written: JSON Lines as `dump` writes objects, or a table.
enum FetchRendering {
    /// A row as `dump` writes objects; a stored value JSON cannot carry unchanged is
    /// refused as `dump` refuses it (``ObjectJSONLines/problem(writing:type:)``).
    static func jsonLine(_ row: FetchedRow, columns: [FetchColumn], store: String) throws(RequestError) -> String {
        var pairs: [(String, JSONValue)] = [("_pk", .number(String(row.primaryKey))), ("_entity", .string(row.entity))]
        for (index, column) in columns.enumerated() where row.hasProperty[index] {
            if let type = column.attribute?.type, let value = row.values[index],
                let problem = ObjectJSONLines.problem(writing: value, type: type)
            {
                throw RequestError(.failed, "\(store): \(row.entity) \(row.primaryKey): \(column.name): \(problem)")
            }
            pairs.append(
                (
                    column.name,
                    row.values[index].map { ObjectJSONLines.jsonValue($0, type: column.attribute?.type) } ?? .null
                ))
        }
        return JSONValue.object(pairs).text
    }

    static func text(_ value: AttributeValue?) -> String {
        guard let value else { return "nil" }
        switch value {
        case .binary(let bytes): return "<\(bytes.count) bytes>"
        default:
            return value.description.replacingOccurrences(of: "\n", with: "\\n").replacingOccurrences(
                of: "\t", with: "\\t")
        }
    }

    /// A table whose column widths come from the first rows (kept until then);
    /// later rows stream with those widths, longer values cut with "…".
    struct Table {
        var header: [String]
        var labelled: Bool
        var pending: [[String]] = []
        var widths: [Int]? = nil
        var count = 0
        static let sample = 200
        static let maximumWidth = 40

        init(columns: [FetchColumn], labelled: Bool) {
            self.labelled = labelled
            header = ["Z_PK"] + (labelled ? ["entity"] : []) + columns.map(\.name)
        }

        mutating func add(_ row: FetchedRow) {
            count += 1
            let cells =
                [String(row.primaryKey)] + (labelled ? [row.entity] : [])
                + row.values.indices.map {
                    // A table for people: a newline or an ESC in a value neither breaks
                    // its row nor reaches the terminal (`--json` gives the exact text).
                    row.hasProperty[$0] ? MessageText.visible(FetchRendering.text(row.values[$0])) : ""
                }
            if widths == nil {
                pending.append(cells)
                if pending.count >= Self.sample { flush() }
            } else {
                Output.write(line(cells))
            }
        }

        mutating func flush() {
            var widths = header.map(\.count)
            for cells in pending {
                for (i, cell) in cells.enumerated() { widths[i] = min(Self.maximumWidth, max(widths[i], cell.count)) }
            }
            self.widths = widths
            var text = line(header)
            for cells in pending { text += line(cells) }
            Output.write(text)
            pending = []
        }

        mutating func finish() {
            if widths == nil { flush() }
            Output.write("(\(count) object\(count == 1 ? "" : "s"))\n")
        }

        /// The first `count` characters of a cell, without the part of a `\u001b` or
        /// `\n` escape (``MessageText`` made it) that the cut would split.
        static func cut(_ cell: String, to count: Int) -> String {
            let head = cell.prefix(count)
            guard let slash = head.suffix(5).lastIndex(of: "\\") else { return String(head) }
            let escape = head[slash...]
            let whole = escape.dropFirst().first == "u" ? 6 : 2
            return escape.count < whole ? String(head[..<slash]) : String(head)
        }

        func line(_ cells: [String]) -> String {
            guard let widths else { return "" }
            return zip(cells, widths).map { cell, width in
                let cut = cell.count > width ? Self.cut(cell, to: width - 1) + "…" : cell
                return cut.padding(toLength: width, withPad: " ", startingAt: 0)
            }.joined(separator: "  ").replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression) + "\n"
        }
    }
}
