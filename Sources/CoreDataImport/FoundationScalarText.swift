/// How Foundation reads a number or a boolean out of any string, as Xcode's model
/// compiler does with a `defaultValueString` that is not a well-formed value of its
/// attribute's type (`"NO"` on an Integer 32, `"0.0"` on an Integer 64). Xcode saves
/// such models and apps ship them for years, so import reads them the same way
/// instead of refusing the history.
///
/// The rules are `NSString`'s documented ones: `integerValue` and `doubleValue` skip
/// leading whitespace, read the longest numeric prefix and give 0 when there is none;
/// `boolValue` is true when, after whitespace, an optional sign and leading zeros,
/// the text starts with `Y`, `y`, `T`, `t` or a digit 1–9.
enum FoundationScalarText {
    /// `NSString.integerValue`: `"NO"` → 0, `"1.5"` → 1, `" -42abc"` → -42; clamped to
    /// the 64-bit range as Foundation clamps.
    static func integerValue(_ text: String) -> Int64 {
        var scalars = Substring(text).unicodeScalars.drop(while: isSpace)
        var negative = false
        if let sign = scalars.first, sign == "+" || sign == "-" {
            negative = sign == "-"
            scalars = scalars.dropFirst()
        }
        var magnitude: UInt64 = 0
        var overflowed = false
        for scalar in scalars {
            guard let digit = asciiDigit(scalar) else { break }
            let (times, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (plus, o2) = times.addingReportingOverflow(UInt64(digit))
            if o1 || o2 {
                overflowed = true
                break
            }
            magnitude = plus
        }
        if negative {
            return overflowed || magnitude > UInt64(Int64.max) ? Int64.min : -Int64(magnitude)
        }
        return overflowed || magnitude > UInt64(Int64.max) ? Int64.max : Int64(magnitude)
    }

    /// The numeric prefix `NSString.doubleValue` reads (`"2.5 kg"` → `"2.5"`, `"1e3x"` →
    /// `"1e3"`), as text so that a decimal keeps its exact digits; `"0"` when there is none.
    static func numericPrefix(_ text: String) -> String {
        let scalars = Array(Substring(text).unicodeScalars.drop(while: isSpace))
        var index = 0
        var result = ""
        if index < scalars.count, scalars[index] == "+" || scalars[index] == "-" {
            if scalars[index] == "-" { result.unicodeScalars.append("-") }
            index += 1
        }
        var digits = 0
        while index < scalars.count, asciiDigit(scalars[index]) != nil {
            result.unicodeScalars.append(scalars[index])
            index += 1
            digits += 1
        }
        if index < scalars.count, scalars[index] == "." {
            var fraction = "."
            var j = index + 1
            while j < scalars.count, asciiDigit(scalars[j]) != nil {
                fraction.unicodeScalars.append(scalars[j])
                j += 1
            }
            if fraction.count > 1 || digits > 0 {
                digits += fraction.count - 1
                result += fraction.count > 1 ? fraction : ""
                index = j
            }
        }
        guard digits > 0 else { return "0" }
        // An exponent counts only when digits follow it.
        if index < scalars.count, scalars[index] == "e" || scalars[index] == "E" {
            var exponent = "e"
            var j = index + 1
            if j < scalars.count, scalars[j] == "+" || scalars[j] == "-" {
                exponent.unicodeScalars.append(scalars[j])
                j += 1
            }
            let start = j
            while j < scalars.count, asciiDigit(scalars[j]) != nil {
                exponent.unicodeScalars.append(scalars[j])
                j += 1
            }
            if j > start { result += exponent }
        }
        if result.hasPrefix("-.") { result = "-0" + result.dropFirst() }
        if result.hasPrefix(".") { result = "0" + result }
        if result.hasSuffix(".") { result.removeLast() }
        return result == "-0" ? "0" : result
    }

    /// `NSString.boolValue`: `"YES"`, `"true"`, `"1"`, `"007"` are true; `"NO"`, `"0.5"`,
    /// `""` are false.
    static func boolValue(_ text: String) -> Bool {
        var scalars = Substring(text).unicodeScalars.drop(while: isSpace)
        if let sign = scalars.first, sign == "+" || sign == "-" { scalars = scalars.dropFirst() }
        scalars = scalars.drop(while: { $0 == "0" })
        guard let first = scalars.first else { return false }
        return "YyTt123456789".unicodeScalars.contains(first)
    }

    private static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" || scalar == "\u{0B}" || scalar == "\u{0C}"
    }

    private static func asciiDigit(_ scalar: Unicode.Scalar) -> UInt8? {
        scalar.value >= 48 && scalar.value <= 57 ? UInt8(scalar.value - 48) : nil
    }
}
