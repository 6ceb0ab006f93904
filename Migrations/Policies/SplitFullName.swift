import ModelMigration

/// Contacts 1 → 2: splits `Person.fullName` into `firstName` and `lastName`
/// (named by `Migrations/Contacts/1-to-2.yaml`). Every other property is copied by
/// the default mapping.
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

    public init() {}

    public mutating func createDestinationInstances(for source: SourceObject, in manager: MigrationManager) throws {
        var person = try manager.createDestinationInstance(for: source)
        let (first, last) = NameSplitter.split(source.string("fullName"))
        person["firstName"] = .string(first)
        person["lastName"] = .string(last)
        try manager.insert(person)
    }
}

/// Splits a full name into first and last name (rules on `SplitFullName`).
public enum NameSplitter {
    /// Particles that start a last name when they come right before its last word.
    public static let particles: Set<String> = ["da", "das", "de", "del", "della", "der", "di", "do", "dos", "du", "la", "le", "ten", "ter", "van", "von", "bin", "al"]

    /// The words of a name, split at any Unicode whitespace. Works on Unicode
    /// scalars with an ASCII fast path: a per-character `isWhitespace` was the
    /// policy's largest cost in the benchmark.
    static func words(_ text: String) -> [String] {
        // Most names are ASCII: split their bytes without decoding characters.
        if text.utf8.allSatisfy({ $0 < 0x80 }) {
            return text.utf8.split(whereSeparator: { $0 == 0x20 || (0x09...0x0D).contains($0) }).map { String(Substring($0)) }
        }
        var words: [String] = []
        var current = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            let space = scalar.value < 0x80 ? (scalar.value == 0x20 || (0x09...0x0D).contains(scalar.value)) : scalar.properties.isWhitespace
            if space {
                if !current.isEmpty { words.append(String(current)); current = String.UnicodeScalarView() }
            } else {
                current.append(scalar)
            }
        }
        if !current.isEmpty { words.append(String(current)) }
        return words
    }

    /// `(firstName, lastName)` of a full name.
    public static func split(_ fullName: String?) -> (String, String) {
        let words = Self.words(fullName ?? "")
        guard words.count > 1 else { return (words.first ?? "", "") }
        var lastStart = words.count - 1
        while lastStart > 1, particles.contains(words[lastStart - 1]) { lastStart -= 1 }
        return (words[..<lastStart].joined(separator: " "), words[lastStart...].joined(separator: " "))
    }
}
