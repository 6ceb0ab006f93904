import Foundation

/// The order imported versions get their numbers in.
///
/// The rule: the version `.xccurrentversion` names is last (it becomes the highest
/// number, our "current"); the others come in the order Xcode's navigator lists them,
/// by name, comparing runs of digits as numbers and letters without regard to case
/// or spaces ("Model 2" before "Model 10", "Model" before "Model 2", "V 23" before "V32"). One exception: when the
/// current version is the first by name (the original, unnumbered model) and later
/// ones exist, the marker is taken as never switched (sample projects such as
/// CoreDataPlus ship "SampleModel" current beside "SampleModel2" and "SampleModel3",
/// whose stores show that history) and the name order stands. An explicit list
/// (`--order`) replaces the rule entirely.
package enum VersionOrder {
    /// True when `a` sorts before `b` by name, digits compared as numbers.
    package static func precedes(_ a: String, _ b: String) -> Bool {
        let left = chunks(a), right = chunks(b)
        for (l, r) in zip(left, right) where l != r {
            switch (l, r) {
            case let (.number(x), .number(y)):
                if x.value != y.value { return x.value < y.value }
            case let (.text(x), .text(y)):
                // Case and spaces aside: Meshtastic names "MeshtasticDataModelV32" and
                // "MeshtasticDataModelV 23" in one history, 23 first.
                let lx = x.lowercased().filter { !$0.isWhitespace }, ly = y.lowercased().filter { !$0.isWhitespace }
                if lx != ly { return lx < ly }
            case (.number, .text): return true
            case (.text, .number): return false
            }
        }
        if left.count != right.count { return left.count < right.count }
        // Equal but for case and leading zeros: any fixed order will do.
        return a < b
    }

    /// Sorts version names by the rule; `current` (when among them) goes last unless
    /// it is the first by name (see the type's documentation).
    /// Names may carry `.xcdatamodel`, which is not compared (Xcode does not show it).
    package static func sorted(_ names: [String], current: String?) -> [String] {
        let byName = byName(names)
        guard let current, names.contains(current), byName.first != current else { return byName }
        return byName.filter { $0 != current } + [current]
    }

    /// How the current version was placed, for a note: nil when it is last by name
    /// anyway (or there is none).
    package enum CurrentPlacement: Equatable {
        /// Moved last although later versions sort after it.
        case movedLast(after: [String])
        /// Kept first by name: the marker looks never switched.
        case keptFirst(before: [String])
    }

    /// Where the rule put `current` among `names`, when it differs from plain name order's last place.
    package static func placement(of current: String?, among names: [String]) -> CurrentPlacement? {
        let byName = byName(names)
        guard let current, let index = byName.firstIndex(of: current), index != byName.count - 1 else { return nil }
        let later = Array(byName[(index + 1)...])
        return index == 0 ? .keptFirst(before: later) : .movedLast(after: later)
    }

    /// Names in Xcode's listing order (`.xcdatamodel`, which Xcode does not show, is not compared).
    private static func byName(_ names: [String]) -> [String] {
        func shown(_ name: String) -> String { name.hasSuffix(".xcdatamodel") ? String(name.dropLast(12)) : name }
        return names.sorted { precedes(shown($0), shown($1)) }
    }

    /// Parses an order file: one version folder name a line (`.xcdatamodel` optional),
    /// blank lines and `#` comments ignored.
    package static func parseList(_ text: String) -> [String] {
        text.split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
    }

    private enum Chunk: Equatable {
        case number(value: Number)
        case text(String)

        struct Number: Equatable {
            var text: String
            /// Digits without leading zeros, compared by length then text: no overflow.
            var value: Digits { Digits(text.drop(while: { $0 == "0" })) }
        }

        struct Digits: Comparable {
            var digits: Substring
            init(_ digits: Substring) { self.digits = digits }
            static func < (a: Digits, b: Digits) -> Bool {
                a.digits.count != b.digits.count ? a.digits.count < b.digits.count : a.digits < b.digits
            }
        }
    }

    private static func chunks(_ text: String) -> [Chunk] {
        var result: [Chunk] = []
        var current = ""
        var inDigits = false
        for character in text {
            let isDigit = character.isASCII && character.isNumber
            if !current.isEmpty, isDigit != inDigits {
                result.append(inDigits ? .number(value: .init(text: current)) : .text(current))
                current = ""
            }
            inDigits = isDigit
            current.append(character)
        }
        if !current.isEmpty { result.append(inDigits ? .number(value: .init(text: current)) : .text(current)) }
        return result
    }
}
