// Writes the example's sample data as JSON Lines for `make demo`: people of the
// Contacts model (version 1, with the `fullName` a policy later splits) and their
// posts. Deterministic: the same files on every run.
//
//     demo-data OUTPUT_FOLDER [PEOPLE]
import Foundation

/// A small deterministic generator (SplitMix64), so demo data never changes.
struct SplitMix64 {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
}

let firstNames = [
    "Ann", "Bob", "Chloé", "José", "Zoë", "Łukasz", "Søren", "Ana María", "Jean-Luc", "Mei", "Olúwaseun", "Ängla",
    "Dmitri",
    "Nguyễn", "Fatima",
]
let middleNames = ["Lee", "Marie", "J.", "van", "de la", "Q"]
let lastNames = [
    "Smith", "García", "Müller", "O'Brien", "Kowalski", "Øvergaard", "Ng", "da Silva", "Иванова", "Lefèvre", "Nakamura",
    "Brontë",
]
let singleNames = ["Madonna", "Prince", "Björk", "Zendaya", "Cher"]
let cities = ["Lisbon", "Zürich", "São Paulo", "Kraków", "Reykjavík", "Tokyo", "Austin", "Nairobi", nil]
let titles = ["Hello", "Migrations on Linux", "Notes", "Weekend", "Café review", "Release 2.0", "Ideas"]

func quote(_ s: String) -> String {
    var out = "\""
    for c in s.unicodeScalars {
        switch c {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        default: out.unicodeScalars.append(c)
        }
    }
    return out + "\""
}

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    try? FileHandle.standardError.write(contentsOf: Data("usage: demo-data OUTPUT_FOLDER [PEOPLE]\n".utf8))
    exit(64)
}
let folder = arguments[1]
let count = arguments.count > 2 ? Int(arguments[2]) ?? 3000 : 3000
try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
var random = SplitMix64(state: 2026)
var people = ""
var posts = ""
var postKey = 0
for pk in 1...count {
    let name: String
    switch random.below(20) {
    case 0: name = ""  // empty
    case 1: name = random.pick(singleNames)  // single name
    case 2: name = "  \(random.pick(firstNames))   \(random.pick(lastNames)) "  // extra spaces
    case 3, 4:
        name = """
            \(random.pick(firstNames)) \(random.pick(middleNames)) \(random.pick(lastNames))
            """  // middle names
    default: name = "\(random.pick(firstNames)) \(random.pick(lastNames))"
    }
    var fields = [
        "\"_pk\":\(pk)", "\"fullName\":\(quote(name))", "\"email\":\"person\(pk)@example.com\"",
        "\"age\":\(18 + random.below(70))",
    ]
    if let city = random.pick(cities) { fields.append("\"city\":\(quote(city))") }
    fields.append(
        """
        "createdAt":"2025-\(String(format: "%02d", 1 + random.below(12)))-\
        \(String(format: "%02d", 1 + random.below(28)))\
        T\(String(format: "%02d", random.below(24))):00:00Z"
        """)
    people += "{" + fields.joined(separator: ",") + "}\n"
    for _ in 0..<random.below(4) {
        postKey += 1
        var post = ["\"_pk\":\(postKey)", "\"title\":\(quote(random.pick(titles)))", "\"author\":\(pk)"]
        if random.below(3) > 0 { post.append("\"body\":\"Post \(postKey) by person \(pk).\"") }
        if random.below(2) == 0 { post.append("\"rating\":\(Double(random.below(50)) / 10)") }
        posts += "{" + post.joined(separator: ",") + "}\n"
    }
}
try people.write(toFile: folder + "/people.jsonl", atomically: true, encoding: .utf8)
try posts.write(toFile: folder + "/posts.jsonl", atomically: true, encoding: .utf8)
print("wrote \(count) people and \(postKey) posts to \(folder)")
