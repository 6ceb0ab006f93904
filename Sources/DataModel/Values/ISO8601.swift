/// ISO 8601 dates ↔ seconds since Core Data's reference date (2001-01-01T00:00:00Z),
/// computed with integer calendar arithmetic so that results never depend on the
/// platform's Foundation or time zone database.
package enum ISO8601 {
    /// Seconds from 1970-01-01 to 2001-01-01.
    package static let referenceDateOffset: Double = 978_307_200

    /// Parses `YYYY-MM-DD`, optionally followed by `THH:MM[:SS[.fraction]]` and `Z` or
    /// `±HH:MM` (a time without a zone is read as UTC).
    package static func parse(_ text: String) -> Double? {
        let s = Array(text.utf8)
        var i = 0
        func number(_ count: Int) -> Int? {
            guard i + count <= s.count else { return nil }
            var v = 0
            for k in i..<(i + count) {
                guard s[k] >= 48, s[k] <= 57 else { return nil }
                v = v * 10 + Int(s[k] - 48)
            }
            i += count
            return v
        }
        func expect(_ c: Character) -> Bool {
            guard i < s.count, s[i] == c.asciiValue! else { return false }
            i += 1
            return true
        }
        guard let year = number(4), expect("-"), let month = number(2), expect("-"), let day = number(2) else {
            return nil
        }
        guard (1...12).contains(month), day >= 1, day <= daysInMonth(year, month) else { return nil }
        // Whole seconds stay integers and the fraction stays digits until the end, so
        // that `.1` becomes the double nearest 0.1 (summing tenths drifts by 2e-8 s).
        var seconds = daysFromCivil(year, month, day) * 86_400 - Int(referenceDateOffset)
        if i == s.count { return Double(seconds) }
        guard expect("T") || expect(" ") else { return nil }
        guard let hour = number(2), expect(":"), let minute = number(2), hour < 24, minute < 60 else { return nil }
        var fraction: [UInt8] = []
        if expect(":") {
            guard let whole = number(2), whole < 60 else { return nil }
            seconds += whole
            if expect(".") {
                let start = i
                while i < s.count, s[i] >= 48, s[i] <= 57 { i += 1 }
                guard i > start else { return nil }
                fraction = Array(s[start..<i])
            }
        }
        seconds += hour * 3600 + minute * 60
        if i == s.count || expect("Z") {
            return i == s.count ? exactly(seconds, fraction: fraction) : nil
        }
        guard i < s.count, s[i] == UInt8(ascii: "+") || s[i] == UInt8(ascii: "-") else { return nil }
        let sign = s[i] == UInt8(ascii: "+") ? 1 : -1
        i += 1
        guard let oh = number(2) else { return nil }
        _ = expect(":")
        guard let om = number(2), oh < 24, om < 60, i == s.count else { return nil }
        seconds -= sign * (oh * 3600 + om * 60)
        return exactly(seconds, fraction: fraction)
    }

    /// `whole + 0.<fraction digits>`, correctly rounded: the decimal text is parsed once.
    private static func exactly(_ whole: Int, fraction: [UInt8]) -> Double {
        var digits = fraction
        while digits.last == UInt8(ascii: "0") { digits.removeLast() }
        guard !digits.isEmpty else { return Double(whole) }
        if whole >= 0 { return Double("\(whole).\(String(decoding: digits, as: UTF8.self))")! }
        // whole + 0.f = -((-whole - 1) + (1 - 0.f)); the digits of 1 - 0.f are the nines'
        // complement of f plus one in the last place (which is not 0, so nothing carries).
        var complement = digits.map { UInt8(ascii: "9") - ($0 - UInt8(ascii: "0")) }
        complement[complement.count - 1] += 1
        return -Double("\(-whole - 1).\(String(decoding: complement, as: UTF8.self))")!
    }

    /// `YYYY-MM-DDTHH:MM:SSZ`, with `.fff…` when there are fractional seconds.
    package static func format(secondsSinceReferenceDate value: Double) -> String {
        // Outside ±100,000 years (or not a number, as a damaged store may hold):
        // the plain number, rather than a calendar date that cannot exist.
        guard value.isFinite, abs(value) < 3.0e12 else { return value.description }
        // Rounded to whole microseconds first, so that 0.9999996 carries into the
        // next second instead of printing as ".1".
        let micros = Int64((value * 1_000_000).rounded()) + Int64(referenceDateOffset) * 1_000_000
        var total = micros / 1_000_000
        var fraction = micros % 1_000_000
        if fraction < 0 {
            fraction += 1_000_000
            total -= 1
        }
        var days = total / 86_400
        var rest = total % 86_400
        if rest < 0 {
            rest += 86_400
            days -= 1
        }
        let (y, m, d) = civilFromDays(Int(days))
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        var text = """
            \(y < 0 ? "-" : "")\(String(repeating: "0", count: max(0, 4 - String(abs(y)).count)))\(abs(y))-\(two(m))\
            -\(two(d))\
            T\(two(Int(rest / 3600))):\(two(Int(rest % 3600 / 60))):\(two(Int(rest % 60)))
            """
        if fraction > 0 {
            var digits = String(fraction)
            digits = String(repeating: "0", count: max(0, 6 - digits.count)) + digits
            while digits.hasSuffix("0") { digits.removeLast() }
            if !digits.isEmpty { text += "." + digits }
        }
        return text + "Z"
    }

    static func daysInMonth(_ year: Int, _ month: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    // Howard Hinnant's days_from_civil / civil_from_days.
    static func daysFromCivil(_ year: Int, _ month: Int, _ day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civilFromDays(_ days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}
