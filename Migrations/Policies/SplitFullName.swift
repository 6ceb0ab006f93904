import DataModel
public import MigrationPolicies

/// Contacts 1 → 2: splits `Person.fullName` into `firstName` and `lastName`
/// (named by `Migrations/Contacts/1-to-2.yaml`). Every other property is copied by
/// the default mapping.
///
/// The mapping file calls the policy's functions, as a Core Data mapping model calls
/// an `NSEntityMigrationPolicy` subclass:
///
/// ```yaml
/// Person:
///   policy: SplitFullName
///   properties:
///     firstName: { value: "FUNCTION($entityPolicy, 'firstNameFrom:', $source.fullName)" }
///     lastName: { value: "FUNCTION($entityPolicy, 'lastNameFrom:', $source.fullName)" }
/// ```
///
/// so the split runs inside the hop's set-based copy of `Person`, one Swift call per
/// row and value. A mapping file that writes `firstName: policy` instead runs the
/// same split in the object-graph stages (`createDestinationInstances`).
///
/// The rules (`NameSplitter.split`):
/// - whitespace of any kind is trimmed at both ends and runs of it inside the
///   name collapse to one space;
/// - an empty or missing name gives `""` and `""` (both are required, with
///   default `""`);
/// - a single word is a first name: `"Madonna"` → `"Madonna"`, `""`;
/// - otherwise the last word is the last name and everything before it the first
///   name, so middle names stay with the first name: `"Ana María García"` →
///   `"Ana María"`, `"García"`;
/// - lowercase particles right before the last word belong to the last name:
///   `"Joana da Silva"` → `"Joana"`, `"da Silva"`; `"Ana de la Cruz"` → `"Ana"`,
///   `"de la Cruz"`;
/// - letters are kept exactly as written (no case or Unicode normalisation).
public struct SplitFullName: EntityMigrationPolicy {
    /// Everything is set while creating instances.
    public static var usesRelationshipPhase: Bool { false }

    /// The source property it reads (checked against each hop it is named for).
    public static var sourceProperties: [String] { ["fullName"] }

    /// `firstNameFrom:` and `lastNameFrom:`: the halves of a full name. SQLite asks
    /// for both halves of a row one after the other, so the split of the last name
    /// seen is kept and the second call only compares bytes.
    public static var functions: [PolicyFunction] {
        let halves = NameHalves()
        return [
            PolicyFunction("firstNameFrom:") { .string(halves.of($0).first) },
            PolicyFunction("lastNameFrom:") { .string(halves.of($0).last) },
        ]
    }

    public init() {}

    public mutating func createDestinationInstances(for source: SourceObject, in manager: MigrationManager) throws {
        var person = try manager.createDestinationInstance(for: source)
        let (first, last) = NameSplitter.split(source.string("fullName"))
        person["firstName"] = .string(first)
        person["lastName"] = .string(last)
        try manager.insert(person)
    }
}

/// The split of the last full name seen, by its bytes: one split per row for two
/// function calls. One instance serves one apply's two functions, on one thread.
final class NameHalves {
    private var input: [UInt8] = []
    private var isNil = true
    private var halves = ("", "")

    /// The halves of argument 0, a full name (nil: `""`, `""`).
    func of(_ arguments: PolicyArguments) -> (first: String, last: String) {
        arguments.withUTF8(0) { bytes in
            guard let bytes else {
                isNil = true
                return ("", "")
            }
            if !isNil, input.count == bytes.count, input.withUnsafeBufferPointer({ $0.elementsEqual(bytes) }) {
                return halves
            }
            input.removeAll(keepingCapacity: true)
            input.append(contentsOf: bytes)
            isNil = false
            halves = NameSplitter.split(utf8: bytes)
            return halves
        }
    }
}

/// Splits a full name into first and last name (rules on `SplitFullName`).
public enum NameSplitter {
    /// Particles that start a last name when they come right before its last word.
    public static let particles: Set<String> = [
        "da", "das", "de", "del", "della", "der", "di", "do", "dos", "du", "la", "le", "ten", "ter", "van", "von",
        "bin", "al",
    ]

    /// The words of a name, split at any Unicode whitespace. Works on Unicode
    /// scalars with an ASCII fast path: a per-character `isWhitespace` was the
    /// policy's largest cost in the benchmark.
    static func words(_ text: String) -> [String] {
        // Most names are ASCII: split their bytes without decoding characters.
        if text.utf8.allSatisfy({ $0 < 0x80 }) {
            return text.utf8.split(whereSeparator: { $0 == 0x20 || (0x09...0x0D).contains($0) }).map {
                String(Substring($0))
            }
        }
        var words: [String] = []
        var current = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            let space =
                scalar.value < 0x80
                ? (scalar.value == 0x20 || (0x09...0x0D).contains(scalar.value)) : scalar.properties.isWhitespace
            if space {
                if !current.isEmpty {
                    words.append(String(current))
                    current = String.UnicodeScalarView()
                }
            } else {
                current.append(scalar)
            }
        }
        if !current.isEmpty { words.append(String(current)) }
        return words
    }

    /// `(firstName, lastName)` of a full name.
    public static func split(_ fullName: String?) -> (String, String) {
        var text = fullName ?? ""
        return text.withUTF8 { split(utf8: $0) }
    }

    /// `(firstName, lastName)` of a full name's UTF-8 bytes (no `String` made for it).
    public static func split(utf8 bytes: UnsafeBufferPointer<UInt8>) -> (String, String) {
        if let fast = splitSimple(bytes) { return fast }
        return splitByWords(String(decoding: bytes, as: UTF8.self))
    }

    /// The rules applied word by word: the reference `splitSimple` must agree with.
    public static func splitByWords(_ text: String) -> (String, String) {
        let words = Self.words(text)
        guard words.count > 1 else { return (words.first ?? "", "") }
        var lastStart = words.count - 1
        while lastStart > 1, particles.contains(words[lastStart - 1]) { lastStart -= 1 }
        return (words[..<lastStart].joined(separator: " "), words[lastStart...].joined(separator: " "))
    }

    /// Particles as bytes, for the ASCII path.
    static let particleBytes: [[UInt8]] = particles.map { Array($0.utf8) }

    /// The same rules on the name's UTF-8 bytes: word boundaries as offsets, and
    /// each half cut out of the text in one piece when its words are separated by
    /// single spaces (nearly always). Splitting into an array of strings and
    /// joining them again was most of the policy's own time. Only ASCII whitespace
    /// is recognised here: a name with a byte that may start a non-ASCII space
    /// (0xC2: U+0085, U+00A0; 0xE1–0xE3: U+1680, U+2000…U+3000) or with more than
    /// eight words takes the general path.
    static func splitSimple(_ bytes: UnsafeBufferPointer<UInt8>) -> (String, String)? {
        do {
            // Word ranges, at most a few: a name with more words takes the general path.
            var starts = (0, 0, 0, 0, 0, 0, 0, 0), ends = (0, 0, 0, 0, 0, 0, 0, 0)
            var count = 0
            var i = 0
            let n = bytes.count
            while i < n {
                let byte = bytes[i]
                if byte == 0xC2 || (0xE1...0xE3).contains(byte) { return nil }
                if byte == 0x20 || (0x09...0x0D).contains(byte) {
                    i += 1
                    continue
                }
                let start = i
                while i < n, bytes[i] != 0x20, !(0x09...0x0D).contains(bytes[i]) {
                    if bytes[i] == 0xC2 || (0xE1...0xE3).contains(bytes[i]) { return nil }
                    i += 1
                }
                guard count < 8 else { return nil }
                withUnsafeMutableBytes(of: &starts) {
                    $0.storeBytes(of: start, toByteOffset: count * MemoryLayout<Int>.stride, as: Int.self)
                }
                withUnsafeMutableBytes(of: &ends) {
                    $0.storeBytes(of: i, toByteOffset: count * MemoryLayout<Int>.stride, as: Int.self)
                }
                count += 1
            }
            func start(_ k: Int) -> Int {
                withUnsafeBytes(of: starts) { $0.load(fromByteOffset: k * MemoryLayout<Int>.stride, as: Int.self) }
            }
            func end(_ k: Int) -> Int {
                withUnsafeBytes(of: ends) { $0.load(fromByteOffset: k * MemoryLayout<Int>.stride, as: Int.self) }
            }
            /// Words a..<b joined by single spaces.
            func joined(_ a: Int, _ b: Int) -> String {
                var single = true
                for k in a..<(b - 1) where end(k) + 1 != start(k + 1) || bytes[end(k)] != 0x20 {
                    single = false
                    break
                }
                if single {
                    return String(decoding: UnsafeBufferPointer(rebasing: bytes[start(a)..<end(b - 1)]), as: UTF8.self)
                }
                var result = ""
                for k in a..<b {
                    if k > a { result += " " }
                    result += String(decoding: UnsafeBufferPointer(rebasing: bytes[start(k)..<end(k)]), as: UTF8.self)
                }
                return result
            }
            guard count > 1 else { return (count == 1 ? joined(0, 1) : "", "") }
            var lastStart = count - 1
            while lastStart > 1 {
                let word = UnsafeBufferPointer(rebasing: bytes[start(lastStart - 1)..<end(lastStart - 1)])
                guard particleBytes.contains(where: { $0.elementsEqual(word) }) else { break }
                lastStart -= 1
            }
            return (joined(0, lastStart), joined(lastStart, count))
        }
    }
}
