/// ISO 8601 dates ↔ seconds since Core Data's reference date (2001-01-01T00:00:00Z),
/// computed with integer calendar arithmetic so that results never depend on the
/// platform's Foundation or time zone database.
public enum ISO8601 {
    /// Seconds from 1970-01-01 to 2001-01-01.
    public static let referenceDateOffset: Double = 978_307_200

    /// Parses `YYYY-MM-DD`, optionally followed by `THH:MM[:SS[.fraction]]` and `Z` or
    /// `±HH:MM` (a time without a zone is read as UTC).
    public static func parse(_ text: String) -> Double? {
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
        guard let year = number(4), expect("-"), let month = number(2), expect("-"), let day = number(2) else { return nil }
        guard (1...12).contains(month), day >= 1, day <= daysInMonth(year, month) else { return nil }
        var seconds = Double(daysFromCivil(year, month, day)) * 86_400
        if i == s.count { return seconds - referenceDateOffset }
        guard expect("T") || expect(" ") else { return nil }
        guard let hour = number(2), expect(":"), let minute = number(2), hour < 24, minute < 60 else { return nil }
        var second = 0.0
        if expect(":") {
            guard let whole = number(2), whole < 60 else { return nil }
            second = Double(whole)
            if expect(".") {
                var scale = 0.1
                let start = i
                while i < s.count, s[i] >= 48, s[i] <= 57 {
                    second += Double(s[i] - 48) * scale
                    scale /= 10
                    i += 1
                }
                guard i > start else { return nil }
            }
        }
        seconds += Double(hour * 3600 + minute * 60) + second
        if i == s.count || expect("Z") {
            return i == s.count ? seconds - referenceDateOffset : nil
        }
        guard i < s.count, s[i] == UInt8(ascii: "+") || s[i] == UInt8(ascii: "-") else { return nil }
        let sign = s[i] == UInt8(ascii: "+") ? 1.0 : -1.0
        i += 1
        guard let oh = number(2) else { return nil }
        _ = expect(":")
        guard let om = number(2), oh < 24, om < 60, i == s.count else { return nil }
        seconds -= sign * Double(oh * 3600 + om * 60)
        return seconds - referenceDateOffset
    }

    /// `YYYY-MM-DDTHH:MM:SSZ`, with `.fff…` when there are fractional seconds.
    public static func format(secondsSinceReferenceDate value: Double) -> String {
        let unix = value + referenceDateOffset
        let whole = unix.rounded(.down)
        let fraction = unix - whole
        let total = Int64(whole)
        var days = total / 86_400
        var rest = total % 86_400
        if rest < 0 { rest += 86_400; days -= 1 }
        let (y, m, d) = civilFromDays(Int(days))
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        var text = "\(y < 0 ? "-" : "")\(String(repeating: "0", count: max(0, 4 - String(abs(y)).count)))\(abs(y))-\(two(m))-\(two(d))T\(two(Int(rest / 3600))):\(two(Int(rest % 3600 / 60))):\(two(Int(rest % 60)))"
        if fraction > 0 {
            var digits = String(Int((fraction * 1_000_000).rounded()))
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
