/// Did-you-mean suggestions for misspelt keys, types and names.
package enum Suggestions {
    /// The closest candidate within a small edit distance, compared case-insensitively.
    package static func closest(to word: String, in candidates: some Sequence<String>) -> String? {
        let lowered = Array(word.lowercased().unicodeScalars)
        let asciiWord = isASCII(word) ? word.utf8.map(lower) : nil
        var best: (String, Int)?
        var rows: ([Int], [Int]) = ([], [])
        for candidate in candidates {
            let limit: Int
            let distance: Int
            if let asciiWord, isASCII(candidate) {
                // Names are ASCII: bytes are characters, and the comparison needs no
                // lowercased copy per candidate (a large model's names are compared
                // once per problem, so this loop is hot when a rename breaks many).
                let length = candidate.utf8.count
                limit = max(1, min(3, length / 3))
                // The distance is at least the difference in length.
                guard abs(length - asciiWord.count) <= limit else { continue }
                distance = editDistance(asciiWord, Array(candidate.utf8), rows: &rows)
            } else {
                limit = max(1, min(3, candidate.count / 3))
                let other = Array(candidate.lowercased().unicodeScalars)
                guard abs(other.count - lowered.count) <= limit else { continue }
                distance = editDistance(lowered.map(\.value), other.map(\.value), rows: &rows)
            }
            if distance <= limit, distance < (best?.1 ?? .max) { best = (candidate, distance) }
        }
        return best?.0
    }

    /// `did you mean 'x'?`, or nil.
    package static func hint(for word: String, in candidates: some Sequence<String>) -> String? {
        closest(to: word, in: candidates).map { "did you mean '\($0)'?" }
    }

    private static func isASCII(_ text: String) -> Bool { text.utf8.allSatisfy { $0 < 0x80 } }

    private static func lower(_ c: UInt8) -> UInt8 { c >= 65 && c <= 90 ? c + 32 : c }

    /// Levenshtein distance, ASCII letters compared without regard to case (the
    /// non-ASCII path passes lowercased scalars); `rows` is scratch space reused
    /// across calls.
    static func editDistance<T: FixedWidthInteger>(_ a: [T], _ b: [T], rows: inout ([Int], [Int])) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        if a.count > 64 || b.count > 64 { return max(a.count, b.count) }
        func fold(_ c: T) -> T { c >= 65 && c <= 90 ? c + 32 : c }
        rows.0.removeAll(keepingCapacity: true)
        rows.0.append(contentsOf: 0...b.count)
        rows.1.removeAll(keepingCapacity: true)
        rows.1.append(contentsOf: repeatElement(0, count: b.count + 1))
        for i in 1...a.count {
            rows.1[0] = i
            let x = fold(a[i - 1])
            for j in 1...b.count {
                rows.1[j] = min(rows.0[j] + 1, rows.1[j - 1] + 1, rows.0[j - 1] + (x == fold(b[j - 1]) ? 0 : 1))
            }
            swap(&rows.0, &rows.1)
        }
        return rows.0[b.count]
    }
}
