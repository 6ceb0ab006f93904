internal import CSQLite
import DataModel
package import Foundation

/// The SQL functions behind the `NSString` methods a mapping file's value may call
/// (Docs/MappingFiles.md, "Expressions"), registered on every connection beside the
/// predicate functions. Offsets and lengths are `NSString`'s: UTF-16 code units.
///
/// - `mm_utf16_length(text)`: `length`.
/// - `mm_quoted_text(text)`: the text as `quote()` writes it, its control characters
///   made visible (`MessageText.visible`); `SQLText.shownValue` uses it.
/// - `mm_substring(text, index, side, key, label)`: `substringFromIndex:` (side 0) and
///   `substringToIndex:` (side 1); an index beyond the end fails the statement naming
///   the row `key` and `label` (NSString raises `NSRangeException`), or is NULL when
///   `key` is NULL (a fetch, or `onFailure: nil`).
/// - `mm_component(text, separator, index, key, label)`: `componentsSeparatedByString:`
///   then `[index]` (Int64.min is `[LAST]`; a negative index is out of range); an index
///   past the last element fails or is NULL the same way. `mm_component_count(text, separator)`: `[SIZE]`.
/// - `mm_trim(text)`: white space and line breaks off both ends
///   (`whitespaceAndNewlineCharacterSet`).
/// - `mm_capitalized(text)`: `capitalizedString` (CoreFoundation's `CFStringCapitalize`,
///   as Foundation ships it).
/// - `mm_replace_matches(text, pattern, template)`: every match of the ICU pattern
///   replaced with the template (`$1`, `\$`), as `NSRegularExpression` does.
///
/// Each takes NULL to NULL, and is deterministic and innocuous.
extension Connection {
    func registerStringFunctions() {
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS
        sqlite3_create_function_v2(
            db, "mm_utf16_length", 1, flags, nil,
            { context, _, arguments in
                guard let context, let arguments, let bytes = textBytes(arguments[0]) else {
                    sqlite3_result_null(context!)
                    return
                }
                sqlite3_result_int64(context, Int64(FoundationText.utf16Length(bytes)))
            }, nil, nil, nil)
        sqlite3_create_function_v2(
            db, "mm_quoted_text", 1, flags, nil,
            { context, _, arguments in
                guard let context, let arguments, let text = textArgument(arguments[0]) else {
                    sqlite3_result_null(context!)
                    return
                }
                resultText(context, SQLText.enclosed(MessageText.visible(text), in: "'"))
            }, nil, nil, nil)
        sqlite3_create_function_v2(
            db, "mm_trim", 1, flags, nil,
            { context, _, arguments in
                guard let context, let arguments, let text = textArgument(arguments[0]) else {
                    sqlite3_result_null(context!)
                    return
                }
                resultText(context, text.trimmingCharacters(in: .whitespacesAndNewlines))
            }, nil, nil, nil)
        sqlite3_create_function_v2(
            db, "mm_capitalized", 1, flags, nil,
            { context, _, arguments in
                guard let context, let arguments, let text = textArgument(arguments[0]) else {
                    sqlite3_result_null(context!)
                    return
                }
                resultText(context, text.capitalized)
            }, nil, nil, nil)
        sqlite3_create_function_v2(
            db, "mm_component_count", 2, flags, nil,
            { context, _, arguments in
                guard let context, let arguments, let text = textBytes(arguments[0]),
                    let separator = textBytes(arguments[1])
                else {
                    sqlite3_result_null(context!)
                    return
                }
                sqlite3_result_int64(context, Int64(FoundationText.components(text, separator).count))
            }, nil, nil, nil)
        registerSubstringFunctions(flags)
        registerReplaceMatches(flags)
    }

    private func registerSubstringFunctions(_ flags: Int32) {
        sqlite3_create_function_v2(
            db, "mm_substring", 5, flags, nil,
            { context, _, arguments in
                guard let context, let arguments, let text = textArgument(arguments[0]),
                    sqlite3_value_type(arguments[1]) != SQLITE_NULL
                else {
                    sqlite3_result_null(context!)
                    return
                }
                let index = sqlite3_value_int64(arguments[1])
                let from = sqlite3_value_int64(arguments[2]) == 0
                if let result = FoundationText.substring(text, index, from: from) {
                    resultText(context, result)
                    return
                }
                let selector = from ? "substringFromIndex:" : "substringToIndex:"
                outOfRange(
                    context, arguments[3], arguments[4],
                    """
                    \(selector) \(index) is beyond the end of \(FoundationText.shown(text)) (\(text.utf16.count) \
                    UTF-16 units)
                    """
                )
            }, nil, nil, nil)
        sqlite3_create_function_v2(
            db, "mm_component", 5, flags, nil,
            { context, _, arguments in
                guard let context, let arguments, let text = textBytes(arguments[0]),
                    let separator = textBytes(arguments[1]),
                    sqlite3_value_type(arguments[2]) != SQLITE_NULL
                else {
                    sqlite3_result_null(context!)
                    return
                }
                let parts = FoundationText.components(text, separator)
                let index = sqlite3_value_int64(arguments[2])
                let chosen = index == Int64.min ? parts.count - 1 : Int(clamping: index)
                guard chosen >= 0, chosen < parts.count else {
                    let whole = String(decoding: text, as: UTF8.self), sep = String(decoding: separator, as: UTF8.self)
                    outOfRange(
                        context, arguments[3], arguments[4],
                        """
                        componentsSeparatedByString: \(FoundationText.shown(sep)) gives \(parts.count) \
                        element\(parts.count == 1 ? "" : "s") for \(FoundationText.shown(whole)); [\(index)] is past \
                        the last
                        """)
                    return
                }
                let part = parts[chosen]
                if part.isEmpty {
                    sqlite3_result_text(context, "", 0, nil)
                    return
                }
                // SQLITE_TRANSIENT: the bytes are the argument's, valid only during the call.
                sqlite3_result_text64(
                    context, UnsafeRawPointer(text.baseAddress! + part.lowerBound).assumingMemoryBound(to: CChar.self),
                    sqlite3_uint64(part.count), unsafeBitCast(-1, to: sqlite3_destructor_type.self), UInt8(SQLITE_UTF8))
            }, nil, nil, nil)
    }

    private func registerReplaceMatches(_ flags: Int32) {
        // The connection, for its cancellation check: a backtracking pattern can run
        // for hours on one row, inside one call, where SQLite's progress handler is
        // never asked. The function only runs while the connection is open.
        let connection = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_create_function_v2(
            db, "mm_replace_matches", 3, flags, connection,
            { context, _, arguments in
                guard let context, let arguments, let text = textArgument(arguments[0]),
                    let pattern = textArgument(arguments[1]),
                    let template = textArgument(arguments[2])
                else {
                    sqlite3_result_null(context!)
                    return
                }
                let expression: NSRegularExpression
                if let cached = sqlite3_get_auxdata(context, 1) {
                    expression = Unmanaged<NSRegularExpression>.fromOpaque(cached).takeUnretainedValue()
                } else {
                    guard !pattern.isEmpty, let compiled = try? NSRegularExpression(pattern: pattern) else {
                        sqlite3_result_error(
                            context, "replace:matching:with: not a valid regular expression: '\(pattern)'", -1)
                        return
                    }
                    expression = compiled
                    sqlite3_set_auxdata(context, 1, Unmanaged.passRetained(compiled).toOpaque()) { pointer in
                        if let pointer { Unmanaged<NSRegularExpression>.fromOpaque(pointer).release() }
                    }
                }
                let owner = sqlite3_user_data(context).map {
                    Unmanaged<Connection>.fromOpaque($0).takeUnretainedValue()
                }
                guard
                    let replaced = RegexReplacement.replace(
                        text, expression, template, isCancelled: { owner?.isCancellingFunctions == true })
                else {
                    // As SQLite's own interrupt: the statement fails with SQLITE_INTERRUPT.
                    sqlite3_result_error_code(context, SQLITE_INTERRUPT)
                    return
                }
                resultText(context, replaced)
            }, nil, nil, nil)
    }
}

/// `stringByReplacingMatchesInString:options:range:withTemplate:`, stoppable: ICU
/// calls back every few thousand steps of a match (`NSMatchingReportProgress`, which
/// swift-corelibs-foundation passes to `uregex_setMatchCallback`), and the match
/// stops when `isCancelled` says so.
package enum RegexReplacement {
    /// Every match replaced with the template, or nil when cancelled. The matches
    /// are found first (the part that can backtrack), then replaced in one mutable
    /// string as `stringByReplacingMatches` does (a Swift string built per match
    /// took twice as long).
    package static func replace(
        _ text: String, _ expression: NSRegularExpression, _ template: String,
        isCancelled: () -> Bool
    ) -> String? {
        var found: [NSTextCheckingResult] = [], cancelled = false
        let range = NSRange(text.startIndex..., in: text)
        withoutActuallyEscaping(isCancelled) { isCancelled in
            expression.enumerateMatches(in: text, options: [.reportProgress], range: range) { match, _, stop in
                if let match {
                    found.append(match)
                } else if isCancelled() {
                    cancelled = true
                    stop.pointee = true
                }
            }
        }
        if cancelled { return nil }
        if found.isEmpty { return text }
        let result = NSMutableString(string: text)
        var shift = 0
        for match in found {
            // Groups are read from `text`, where the match's ranges are.
            let replacement = expression.replacementString(for: match, in: text, offset: 0, template: template)
            result.replaceCharacters(
                in: NSRange(location: match.range.location + shift, length: match.range.length), with: replacement)
            shift += replacement.utf16.count - match.range.length
        }
        return String(result)
    }

    /// Whether `expression` matches in `range` of `text` (`firstMatch`), or nil when cancelled.
    package static func matches(
        _ text: String, _ expression: NSRegularExpression, range: NSRange, isCancelled: () -> Bool
    ) -> Bool? {
        var found = false, cancelled = false
        withoutActuallyEscaping(isCancelled) { isCancelled in
            expression.enumerateMatches(in: text, options: [.reportProgress], range: range) { match, _, stop in
                if match != nil {
                    found = true
                    stop.pointee = true
                } else if isCancelled() {
                    cancelled = true
                    stop.pointee = true
                }
            }
        }
        return cancelled ? nil : found
    }
}

extension Connection {
    /// Whether a long-running SQL function should stop: the statements are being
    /// stopped (`stopStatements(when:)`) or the migration was cancelled.
    var isCancellingFunctions: Bool { interruptCheckBox?.isCancelled() == true || functionCancellation?() == true }
}

/// An index out of range: NULL without a row key (a fetch, `onFailure: nil`), else a
/// failed statement naming the row, as `NSRangeException` stops Core Data's migration.
private func outOfRange(_ context: OpaquePointer, _ key: OpaquePointer?, _ label: OpaquePointer?, _ detail: String) {
    guard sqlite3_value_type(key) != SQLITE_NULL else {
        sqlite3_result_null(context)
        return
    }
    let name = textArgument(label) ?? "a value"
    sqlite3_result_error(
        context,
        """
        \(name): \(detail) in source row Z_PK \(sqlite3_value_int64(key)) \
        (guard it with TERNARY, or write `onFailure: nil` for an optional attribute)
        """, -1)
}

/// `NSString`'s measures and splits on UTF-8 text, without making Swift strings
/// where bytes suffice (these run once per row of a migration).
package enum FoundationText {
    /// The length in UTF-16 code units of the text as `substring` decodes it: one per
    /// scalar, two for scalars outside the BMP. Bytes that are not valid UTF-8 (a
    /// store written by another tool may hold them) count as the U+FFFD each
    /// invalid sequence decodes to, as `String(decoding:as:)` reads them, so that
    /// `length:` and the substring offsets count the same units.
    package static func utf16Length(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var count = 0, ascii = true
        for b in bytes {
            if b & 0xC0 != 0x80 { count += b >= 0xF0 ? 2 : 1 }
            if b >= 0x80 { ascii = false }
        }
        // Counting lead bytes is right only for valid UTF-8.
        if ascii || String(validating: bytes, as: UTF8.self) != nil { return count }
        return String(decoding: bytes, as: UTF8.self).utf16.count
    }

    /// `substringFromIndex:` (`from`) or `substringToIndex:` at a UTF-16 offset; nil
    /// beyond the end. An offset inside a surrogate pair leaves half a character,
    /// which UTF-8 cannot hold: it becomes U+FFFD, as Swift decodes a lone surrogate.
    package static func substring(_ text: String, _ index: Int64, from: Bool) -> String? {
        let units = text.utf16
        guard index >= 0, index <= units.count else { return nil }
        let split = units.index(units.startIndex, offsetBy: Int(index))
        let slice = from ? units[split...] : units[..<split]
        return String(decoding: Array(slice), as: UTF16.self)
    }

    /// `componentsSeparatedByString:`: byte ranges of the parts, the separator matched
    /// literally (Unicode scalars); an empty text gives one empty part, an empty
    /// separator one part, the whole text.
    package static func components(_ text: UnsafeBufferPointer<UInt8>, _ separator: UnsafeBufferPointer<UInt8>)
        -> [Range<Int>]
    {
        guard !separator.isEmpty, text.count >= separator.count else { return [0..<text.count] }
        var parts: [Range<Int>] = []
        var start = 0, i = 0
        let first = separator[0], last = text.count - separator.count
        while i <= last {
            if text[i] == first, (1..<separator.count).allSatisfy({ text[i + $0] == separator[$0] }) {
                parts.append(start..<i)
                i += separator.count
                start = i
            } else {
                i += 1
            }
        }
        parts.append(start..<text.count)
        return parts
    }

    /// A text for an error message, quoted and cut at 40 characters, its control
    /// characters made visible (`MessageText.visible`: a NUL would end SQLite's
    /// message there, an ESC reach the terminal).
    static func shown(_ text: String) -> String {
        let cut = text.count > 40 ? String(text.prefix(40)) + "…" : text
        return "'" + MessageText.visible(cut).replacingOccurrences(of: "'", with: "''") + "'"
    }
}
