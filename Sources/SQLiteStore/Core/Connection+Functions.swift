internal import CSQLite
import DataModel
package import Foundation

/// The SQL functions predicates compile to, registered on every connection so
/// that a fetch, a batch request and a migration's `INSERT … SELECT` all read
/// Core Data's string semantics the same way:
///
/// - `mm_fold(text, flags)`: `[c]` (1) and `[d]` (2) as `NSString` compares them
///   (`String.folding(options:locale:)`, Unicode-aware; SQLite's `lower()` folds
///   ASCII only).
/// - `mm_lower(text)`, `mm_upper(text)`: `lowercase:` and `uppercase:` (Unicode).
/// - `mm_matches(text, pattern, flags)`: `MATCHES`, an ICU regular expression
///   matching the whole text, through `NSRegularExpression` (the compiled pattern
///   is cached per statement with `sqlite3_set_auxdata`).
/// - `mm_string(number)`: `CAST(number, 'NSString')`: the NSNumber's description
///   (`3` for 3.0, the shortest digits that read back as the double: SQLite's text
///   conversion gives `3.0` and 15 significant digits).
/// - `mm_number(text)`: `CAST(text, 'NSNumber')`: the leading number of a string
///   (`"12 pages"` → 12), integer when it has no fraction or exponent; NULL when
///   the text starts with no number.
///
/// - `mm_divisor(value, key, label)`: the value, or a failed statement naming the
///   row when it is zero (a division in a copy or an update).
/// - `mm_abs(value, key, label)`: `abs:`; of Int64.min, whose absolute value no
///   64-bit integer holds, a failed statement naming the row (SQLite's `abs()` fails
///   with a bare "integer overflow"), without a row when `key` is NULL (a fetch, a
///   selection): never nil, which a selection would read as a choice.
/// - `mm_number_or_fail(text, key, label)`: `mm_number`, except that a text with
///   no leading number fails the statement, naming the row's key and the label
///   (`Book.pages: 'many' of source row Z_PK 17 is not a number`): a mapping
///   file's value that must not silently become nil.
///
/// - `mm_required(value, key, label)`: the value, or a failed statement naming the
///   row when it is NULL (a mapping file's value for a required attribute).
///
/// - `mm_within(value, low, high, flags, key, label, limits)`: the value, or a
///   failed statement naming the row when it (with flag 1, its length: UTF-16
///   units of its text, as `NSString.length` counts; with 4 as well, its bytes, for
///   binary data) is below `low` or above `high` (NULL:
///   no bound); with flag 2, NULL instead of the failure (`onFailure: nil`): a
///   mapping file's value held to its destination attribute's range and
///   `min`/`max` (`Visit.stars: 40000 of source row Z_PK 2 is outside integer16
///   (-32768...32767)`). One call on the value already computed, so the copy stays
///   one pass over the rows.
///
/// - `mm_audit(violates, key)`: 1, or a failed statement naming the row when
///   `violates` is true: a precondition of the store (a value in another entity's
///   column, a reference to a row of the wrong entity) checked by a rebuild's copy
///   in its own scan, on the precondition's own condition for that row.
///
/// - `mm_integer(value, key, label, limits, flags)`: a REAL headed for an integer
///   column, truncated toward zero (NSNumber's `integerValue`, as `CAST` does), or a
///   failed statement naming the row when it lies outside Int64 (SQLite computes
///   integer overflow in REAL, and `CAST` would clamp it to the nearest end); with
///   flag 2, NULL instead. Other values pass through for the `CAST` around it.
///
/// Each is deterministic (SQLite may evaluate it once per distinct argument) and
/// innocuous (no side effects, safe in schema and views).
extension Connection {
    func registerPredicateFunctions() {
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS
        registerTextFunctions(flags: flags)
        registerNumberFunctions(flags: flags)
        registerDivisor(flags: flags)
        registerAbsolute(flags: flags)
        registerRowChecks(flags: flags)
        registerIntegerCheck(flags: flags)
        registerDecimalCheck(flags: flags)
        registerMatches(flags: flags)
    }

    /// `mm_fold`, `mm_lower` and `mm_upper`: Unicode-aware folding and case mapping.
    private func registerTextFunctions(flags: Int32) {
        sqlite3_create_function_v2(
            db, "mm_fold", 2, flags, nil,
            { context, _, arguments in
                guard let context, let arguments, let text = textArgument(arguments[0]) else {
                    sqlite3_result_null(context)
                    return
                }
                resultText(context, TextFolding.fold(text, flags: Int(sqlite3_value_int64(arguments[1]))))
            }, nil, nil, nil)
        sqlite3_create_function_v2(
            db, "mm_lower", 1, flags, nil,
            { context, _, arguments in
                guard let context, let arguments else { return }
                if asciiCaseMapped(context, arguments[0], upper: false) { return }
                guard let text = textArgument(arguments[0]) else {
                    sqlite3_result_null(context)
                    return
                }
                resultText(context, TextFolding.lowercase(text))
            }, nil, nil, nil)
        sqlite3_create_function_v2(
            db, "mm_upper", 1, flags, nil,
            { context, _, arguments in
                guard let context, let arguments else { return }
                if asciiCaseMapped(context, arguments[0], upper: true) { return }
                guard let text = textArgument(arguments[0]) else {
                    sqlite3_result_null(context)
                    return
                }
                resultText(context, TextFolding.uppercase(text))
            }, nil, nil, nil)
    }

    /// `mm_divisor(value, key, label)`: the value, or a failed statement naming the
    /// row when it is zero: NSExpression's `divide:by:` never gives nil for it (it
    /// raises, or gives an infinity), so a copy or an update must not store nil.
    private func registerDivisor(flags: Int32) {
        sqlite3_create_function_v2(
            db, "mm_divisor", 3, flags, nil,
            { context, _, arguments in
                guard let context, let arguments else { return }
                let type = sqlite3_value_type(arguments[0])
                let zero =
                    (type == SQLITE_INTEGER && sqlite3_value_int64(arguments[0]) == 0)
                    || (type == SQLITE_FLOAT && sqlite3_value_double(arguments[0]) == 0)
                guard zero else {
                    sqlite3_result_value(context, arguments[0])
                    return
                }
                let label = textArgument(arguments[2]) ?? "a value"
                let message =
                    "\(label): division by zero in source row Z_PK \(sqlite3_value_int64(arguments[1]))"
                    + " (make the divisor non-zero first, or write `onFailure: nil` for an optional attribute)"
                sqlite3_result_error(context, message, -1)
            }, nil, nil, nil)
    }

    /// `mm_abs(value, key, label)`: the absolute value; Int64.min has none in 64 bits.
    private func registerAbsolute(flags: Int32) {
        sqlite3_create_function_v2(
            db, "mm_abs", 3, flags, nil,
            { context, _, arguments in
                guard let context, let arguments else { return }
                switch sqlite3_value_type(arguments[0]) {
                case SQLITE_NULL: sqlite3_result_null(context)
                case SQLITE_INTEGER:
                    let value = sqlite3_value_int64(arguments[0])
                    if value != .min {
                        sqlite3_result_int64(context, Swift.abs(value))
                        return
                    }
                    // Never nil: in a selection (`delete --where 'NOT (abs:(n) > 5)'`) a
                    // nil would choose rows the predicate does not describe.
                    guard sqlite3_value_type(arguments[1]) != SQLITE_NULL else {
                        sqlite3_result_error(context, "abs: of \(value) is 2^63, beyond Integer 64", -1)
                        return
                    }
                    let label = textArgument(arguments[2]) ?? "a value"
                    let message =
                        "\(label): abs: of \(value) in source row Z_PK \(sqlite3_value_int64(arguments[1])) is 2^63, "
                            + """
                            beyond Integer 64 (guard it with TERNARY, or write `onFailure: nil` for an optional \
                            attribute)
                            """
                    sqlite3_result_error(context, message, -1)
                default: sqlite3_result_double(context, Swift.abs(sqlite3_value_double(arguments[0])))
                }
            }, nil, nil, nil)
    }

    /// `mm_number` and `mm_number_or_fail`: the leading number of a text.
    private func registerNumberFunctions(flags: Int32) {
        sqlite3_create_function_v2(
            db, "mm_string", 1, flags, nil,
            { context, _, arguments in
                guard let context, let arguments else { return }
                switch sqlite3_value_type(arguments[0]) {
                case SQLITE_INTEGER: resultText(context, String(sqlite3_value_int64(arguments[0])))
                case SQLITE_FLOAT:
                    resultText(context, NumberText.foundationDescription(sqlite3_value_double(arguments[0])))
                case SQLITE_NULL: sqlite3_result_null(context)
                default: sqlite3_result_value(context, arguments[0])
                }
            }, nil, nil, nil)
        sqlite3_create_function_v2(
            db, "mm_number", 1, flags, nil,
            { context, _, arguments in
                guard let context, let arguments else { return }
                if !resultNumber(context, arguments[0]) { sqlite3_result_null(context) }
            }, nil, nil, nil)
        sqlite3_create_function_v2(
            db, "mm_number_or_fail", 3, flags, nil,
            { context, _, arguments in
                guard let context, let arguments else { return }
                if sqlite3_value_type(arguments[0]) == SQLITE_NULL {
                    sqlite3_result_null(context)
                    return
                }
                if resultNumber(context, arguments[0]) { return }
                let text = textArgument(arguments[0]) ?? ""
                let label = textArgument(arguments[2]) ?? "a value"
                let shown = text.count > 40 ? String(text.prefix(40)) + "…" : text
                let message =
                    "\(label): '\(shown.replacingOccurrences(of: "'", with: "''"))' "
                    + "of source row Z_PK \(sqlite3_value_int64(arguments[1])) is not a number"
                    + " (make it one first, or write `onFailure: nil` for an optional attribute)"
                sqlite3_result_error(context, message, -1)
            }, nil, nil, nil)
    }

    /// `mm_required` and `mm_within`: a mapping file's value held to its destination
    /// attribute, failing the statement with the row's key; `mm_audit`: a row that
    /// fails a precondition, failing the statement with its key (`apply` then runs
    /// the precondition's own query, which says what is wrong).
    private func registerRowChecks(flags: Int32) {
        sqlite3_create_function_v2(
            db, "mm_audit", 2, flags, nil,
            { context, _, arguments in
                guard let context, let arguments else { return }
                guard sqlite3_value_type(arguments[0]) != SQLITE_NULL, sqlite3_value_int64(arguments[0]) != 0 else {
                    sqlite3_result_int64(context, 1)
                    return
                }
                sqlite3_result_error(
                    context, "source row Z_PK \(sqlite3_value_int64(arguments[1])) fails a precondition of the store",
                    -1)
            }, nil, nil, nil)
        sqlite3_create_function_v2(
            db, "mm_required", 3, flags, nil,
            { context, _, arguments in
                guard let context, let arguments else { return }
                guard sqlite3_value_type(arguments[0]) == SQLITE_NULL else {
                    sqlite3_result_value(context, arguments[0])
                    return
                }
                let label = textArgument(arguments[2]) ?? "a value"
                sqlite3_result_error(
                    context,
                    """
                    \(label): the value computed for source row Z_PK \(sqlite3_value_int64(arguments[1])) is nil, and \
                    \(label) is required
                    """,
                    -1)
            }, nil, nil, nil)
        sqlite3_create_function_v2(
            db, "mm_within", 7, flags, nil,
            { context, _, arguments in
                guard let context, let arguments else { return }
                let value = arguments[0]
                let type = sqlite3_value_type(value)
                guard type != SQLITE_NULL else {
                    sqlite3_result_null(context)
                    return
                }
                let measure: DatabaseValueMeasure
                let flags = sqlite3_value_int64(arguments[3])
                if flags & 1 != 0 {
                    measure = .integer(
                        flags & 4 != 0
                            ? Int64(sqlite3_value_bytes(value))
                            : Int64(textBytes(value).map { FoundationText.utf16Length($0) } ?? 0))
                } else {
                    measure =
                        type == SQLITE_INTEGER
                        ? .integer(sqlite3_value_int64(value)) : .real(sqlite3_value_double(value))
                }
                guard measure.isBelow(arguments[1]) || measure.isAbove(arguments[2]) else {
                    sqlite3_result_value(context, value)
                    return
                }
                guard flags & 2 == 0 else {
                    sqlite3_result_null(context)
                    return
                }
                let shown: String
                switch type {
                case SQLITE_INTEGER: shown = String(sqlite3_value_int64(value))
                case SQLITE_FLOAT: shown = String(sqlite3_value_double(value))
                case SQLITE_BLOB: shown = "\(sqlite3_value_bytes(value)) bytes"
                default: shown = FoundationText.shown(textArgument(value) ?? "")
                }
                let label = textArgument(arguments[5]) ?? "a value"
                let limits = textArgument(arguments[6]) ?? "its limits"
                sqlite3_result_error(
                    context,
                    "\(label): \(shown) of source row Z_PK \(sqlite3_value_int64(arguments[4])) is outside \(limits)"
                        + " (change the value expression, or correct the row first)", -1)
            }, nil, nil, nil)
    }

    /// `mm_integer`: a REAL result within Int64, or the row's failure.
    private func registerIntegerCheck(flags: Int32) {
        sqlite3_create_function_v2(
            db, "mm_integer", 5, flags, nil,
            { context, _, arguments in
                guard let context, let arguments else { return }
                guard sqlite3_value_type(arguments[0]) == SQLITE_FLOAT else {
                    sqlite3_result_value(context, arguments[0])
                    return
                }
                let value = sqlite3_value_double(arguments[0])
                // [-2^63, 2^63): every double there truncates to an Int64 exactly.
                if value >= -0x1p63, value < 0x1p63 {
                    sqlite3_result_int64(context, Int64(value))
                    return
                }
                guard sqlite3_value_int64(arguments[4]) & 2 == 0 else {
                    sqlite3_result_null(context)
                    return
                }
                let label = textArgument(arguments[2]) ?? "a value"
                let limits = textArgument(arguments[3]) ?? "its limits"
                sqlite3_result_error(
                    context,
                    "\(label): \(value) of source row Z_PK \(sqlite3_value_int64(arguments[1])) is outside \(limits)"
                        + " (integer arithmetic past Int64 computes in REAL; change the value expression, or correct "
                        + "the row first)",
                    -1)
            }, nil, nil, nil)
    }

    /// `mm_decimal(value, key, label, flags)`: a value headed for a decimal column,
    /// or the row's failure when no `NSDecimalNumber` holds it: an infinity (REAL
    /// arithmetic past the ends), a magnitude from 10^165 up or below 10^-128, a text
    /// that is no decimal number; with flag 2, NULL instead.
    private func registerDecimalCheck(flags: Int32) {
        sqlite3_create_function_v2(
            db, "mm_decimal", 4, flags, nil,
            { context, _, arguments in
                guard let context, let arguments else { return }
                let problem: String?
                switch sqlite3_value_type(arguments[0]) {
                case SQLITE_FLOAT:
                    let value = sqlite3_value_double(arguments[0])
                    problem = Connection.decimalProblem(value)
                case SQLITE_TEXT:
                    let text = textArgument(arguments[0]) ?? ""
                    if case .failure(let failure) = DefaultValueParser.parse(text, as: .decimal) {
                        problem = failure.message
                    } else {
                        problem = nil
                    }
                default: problem = nil
                }
                guard let problem else {
                    sqlite3_result_value(context, arguments[0])
                    return
                }
                guard sqlite3_value_int64(arguments[3]) & 2 == 0 else {
                    sqlite3_result_null(context)
                    return
                }
                let label = textArgument(arguments[2]) ?? "a value"
                sqlite3_result_error(
                    context,
                    "\(label): \(problem) (source row Z_PK \(sqlite3_value_int64(arguments[1])); a decimal holds 38 "
                        + "digits "
                            + """
                            times 10^-128 to 10^127: change the value expression, or write `onFailure: nil` for an \
                            optional attribute)
                            """,
                    -1)
            }, nil, nil, nil)
    }

    /// Why a double is no `NSDecimalNumber` value, or nil: the range rule is the
    /// model's own (`DefaultValueParser`), read from the double's shortest text.
    package static func decimalProblem(_ value: Double) -> String? {
        if !value.isFinite { return "\(value) is not a decimal number" }
        if case .failure(let failure) = DefaultValueParser.parse(value.description, as: .decimal) {
            return failure.message
        }
        return nil
    }

    /// `mm_matches`: `MATCHES`, the compiled pattern cached per statement.
    private func registerMatches(flags: Int32) {
        // The connection, for its cancellation check (as `mm_replace_matches`).
        let connection = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_create_function_v2(
            db, "mm_matches", 3, flags, connection,
            { context, _, arguments in
                guard let context, let arguments, let text = textArgument(arguments[0]),
                    let pattern = textArgument(arguments[1])
                else {
                    sqlite3_result_null(context!)
                    return
                }
                let options = Int(sqlite3_value_int64(arguments[2]))
                let expression: NSRegularExpression
                if let cached = sqlite3_get_auxdata(context, 1) {
                    expression = Unmanaged<NSRegularExpression>.fromOpaque(cached).takeUnretainedValue()
                } else {
                    var regexOptions: NSRegularExpression.Options = []
                    if options & 1 != 0 { regexOptions.insert(.caseInsensitive) }
                    guard let compiled = WholeTextPattern.expression(pattern, options: regexOptions) else {
                        sqlite3_result_error(context, "MATCHES: not a valid regular expression: '\(pattern)'", -1)
                        return
                    }
                    expression = compiled
                    sqlite3_set_auxdata(context, 1, Unmanaged.passRetained(compiled).toOpaque()) { pointer in
                        if let pointer { Unmanaged<NSRegularExpression>.fromOpaque(pointer).release() }
                    }
                }
                // [d] folds the text; the pattern is folded by the caller when it is a literal.
                let subject = options & 2 != 0 ? TextFolding.fold(text, flags: 2) : text
                let range = NSRange(subject.startIndex..., in: subject)
                let owner = sqlite3_user_data(context).map {
                    Unmanaged<Connection>.fromOpaque($0).takeUnretainedValue()
                }
                guard
                    let found = RegexReplacement.matches(
                        subject, expression, range: range, isCancelled: { owner?.isCancellingFunctions == true })
                else {
                    sqlite3_result_error_code(context, SQLITE_INTERRUPT)
                    return
                }
                sqlite3_result_int64(context, found ? 1 : 0)
            }, nil, nil, nil)
    }
}

/// `MATCHES` is ICU's `matches`: the whole text against the whole pattern, so
/// `'ab' MATCHES 'a|ab'` holds. `NSRegularExpression` has no such call, and an
/// anchored first match that happens to stop early (at `a`) is not the answer; the
/// pattern is therefore compiled as `\A(?:PATTERN)\z`, which makes the engine
/// backtrack into every alternative until one ends at the end of the text.
package enum WholeTextPattern {
    /// The whole-text form of `pattern`, or nil when `pattern` is not a valid ICU
    /// regular expression.
    package static func expression(_ pattern: String, options: NSRegularExpression.Options = []) -> NSRegularExpression?
    {
        guard (try? NSRegularExpression(pattern: pattern, options: options)) != nil else { return nil }
        // A valid pattern whose wrapped form does not compile ends inside something
        // that swallowed the closing `)`: a `#` comment of `(?x)` (ended by a line
        // break) or a `\Q` quote (ended by `\E`). Each fallback only closes what is open.
        for close in [")", "\n)", "\\E)", "\\E\n)"] {
            if let expression = try? NSRegularExpression(pattern: "\\A(?:" + pattern + close + "\\z", options: options)
            {
                return expression
            }
        }
        return nil
    }
}

/// A value or its length, compared with bounds of either type without losing
/// integer precision.
private enum DatabaseValueMeasure {
    case integer(Int64)
    case real(Double)

    func isBelow(_ bound: OpaquePointer?) -> Bool { compare(bound).map { $0 < 0 } ?? false }
    func isAbove(_ bound: OpaquePointer?) -> Bool { compare(bound).map { $0 > 0 } ?? false }

    /// -1, 0, 1 as the measure is below, at or above `bound`; nil for no bound.
    private func compare(_ bound: OpaquePointer?) -> Int? {
        switch (self, sqlite3_value_type(bound)) {
        case (_, SQLITE_NULL): return nil
        case (.integer(let v), SQLITE_INTEGER):
            let b = sqlite3_value_int64(bound)
            return v < b ? -1 : v > b ? 1 : 0
        case (.integer(let v), _):
            let b = sqlite3_value_double(bound)
            return Double(v) < b ? -1 : Double(v) > b ? 1 : 0
        case (.real(let v), _):
            let b = sqlite3_value_double(bound)
            // NaN is outside every range.
            return v.isNaN ? 1 : v < b ? -1 : v > b ? 1 : 0
        }
    }
}

func textArgument(_ value: OpaquePointer?) -> String? {
    guard sqlite3_value_type(value) != SQLITE_NULL, let bytes = sqlite3_value_text(value) else { return nil }
    // By length, not up to the first NUL: a text may hold NULs.
    let count = Int(sqlite3_value_bytes(value))
    return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
}

/// A text argument's bytes, valid until the function returns (no copy).
func textBytes(_ value: OpaquePointer?) -> UnsafeBufferPointer<UInt8>? {
    guard sqlite3_value_type(value) != SQLITE_NULL, let bytes = sqlite3_value_text(value) else { return nil }
    return UnsafeBufferPointer(start: bytes, count: Int(sqlite3_value_bytes(value)))
}

/// `lowercase:`/`uppercase:` of an ASCII text straight on its bytes (one buffer,
/// no Swift strings: most texts are ASCII, and a migration calls this per row).
/// False, having done nothing, for NULL and for text with other characters.
private func asciiCaseMapped(_ context: OpaquePointer, _ value: OpaquePointer?, upper: Bool) -> Bool {
    guard let bytes = textBytes(value), bytes.allSatisfy({ $0 < 0x80 }) else { return false }
    guard !bytes.isEmpty,
        let buffer = sqlite3_malloc64(sqlite3_uint64(bytes.count))?.assumingMemoryBound(to: UInt8.self)
    else {
        sqlite3_result_text(context, "", 0, nil)
        return true
    }
    for i in 0..<bytes.count {
        let b = bytes[i]
        buffer[i] = upper ? (b >= 97 && b <= 122 ? b - 32 : b) : (b >= 65 && b <= 90 ? b + 32 : b)
    }
    sqlite3_result_text64(
        context, UnsafeRawPointer(buffer).assumingMemoryBound(to: CChar.self), sqlite3_uint64(bytes.count),
        { sqlite3_free($0) }, UInt8(SQLITE_UTF8))
    return true
}

func resultText(_ context: OpaquePointer, _ text: String) {
    // SQLITE_TRANSIENT: SQLite copies the bytes before returning.
    // An empty text has no buffer; a NULL pointer would make the result NULL.
    if text.isEmpty {
        sqlite3_result_text(context, "", 0, nil)
        return
    }
    var text = text
    text.withUTF8 { buffer in
        sqlite3_result_text64(
            context, buffer.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) },
            sqlite3_uint64(buffer.count),
            unsafeBitCast(-1, to: sqlite3_destructor_type.self), UInt8(SQLITE_UTF8))
    }
}

/// Sets the result to the number `value` holds (an integer, a real, or the leading
/// number of a text); false, leaving the result unset, when it holds none.
private func resultNumber(_ context: OpaquePointer, _ value: OpaquePointer?) -> Bool {
    switch sqlite3_value_type(value) {
    case SQLITE_INTEGER: sqlite3_result_int64(context, sqlite3_value_int64(value))
    case SQLITE_FLOAT: sqlite3_result_double(context, sqlite3_value_double(value))
    default:
        switch textBytes(value).flatMap(TextFolding.leadingNumber(bytes:)) {
        case .integer(let v)?: sqlite3_result_int64(context, v)
        case .real(let v)?: sqlite3_result_double(context, v)
        default: return false
        }
    }
    return true
}
