import Migrations
import Testing

/// `NameSplitter.split`, the rules `SplitFullName` documents: whitespace of any kind
/// trimmed and collapsed, empty and missing → `""`/`""`, one word → first name, the
/// last word → last name (middle names stay first), lowercase particles join the
/// last name, letters kept exactly.
@Suite struct PolicyNameSplitterTests {
    /// `(fullName, firstName, lastName)`.
    static let cases: [(String?, String, String)] = [
        // Single names.
        ("Madonna", "Madonna", ""),
        ("  Cher\t", "Cher", ""),
        ("Ω", "Ω", ""),
        // Two words, middle names.
        ("Ann Lee", "Ann", "Lee"),
        ("Ana María García", "Ana María", "García"),
        ("John Ronald Reuel Tolkien", "John Ronald Reuel", "Tolkien"),
        // Extra whitespace: trimmed at both ends, runs collapse to one space.
        ("  Ann   Lee  ", "Ann", "Lee"),
        ("\tAnn\n\nMarie\r\nLee\u{0B}\u{0C}", "Ann Marie", "Lee"),
        ("Ann\u{00A0}Lee", "Ann", "Lee"),  // no-break space
        ("Ann\u{2003}Marie\u{3000}Lee", "Ann Marie", "Lee"),  // em space, ideographic space
        ("Ann\u{2028}Lee\u{0085}", "Ann", "Lee"),  // line separator, next line
        ("Ann\u{202F}\u{205F}\u{1680}Lee", "Ann", "Lee"),  // narrow no-break, medium math, ogham
        // Particles join the last name; only lowercase ones, never the first word.
        ("Joana da Silva", "Joana", "da Silva"),
        ("Ana de la Cruz", "Ana", "de la Cruz"),
        ("Ludwig van Beethoven", "Ludwig", "van Beethoven"),
        ("Maria dos Santos Silva", "Maria dos Santos", "Silva"),
        ("Ana María de la Cruz", "Ana María", "de la Cruz"),
        ("Joana Da Silva", "Joana Da", "Silva"),
        ("da Silva", "da", "Silva"),
        ("van der Berg", "van", "der Berg"),
        ("  Joana \t da   Silva\n", "Joana", "da Silva"),
        // Non-ASCII letters, kept as written.
        ("Zoë Ångström", "Zoë", "Ångström"),
        ("Łukasz Żółć", "Łukasz", "Żółć"),
        ("山田 太郎", "山田", "太郎"),
        ("Ἀριστοτέλης Σταγειρίτης", "Ἀριστοτέλης", "Σταγειρίτης"),
        ("José 👩‍👩‍👧 Núñez", "José 👩‍👩‍👧", "Núñez"),
        ("ZÜRICH straße", "ZÜRICH", "straße"),
        // Empty and missing.
        ("", "", ""),
        ("   ", "", ""),
        ("\n\t\u{00A0}\u{3000}", "", ""),
        (nil, "", ""),
    ]

    @Test(arguments: cases.indices)
    func splitsEveryTrickyName(_ index: Int) {
        let (fullName, first, last) = Self.cases[index]
        let split = NameSplitter.split(fullName)
        #expect(split.0 == first, "\(fullName.debugDescription)")
        #expect(split.1 == last, "\(fullName.debugDescription)")
    }

    /// Swift's `==` compares canonically equivalent strings as equal; the split must
    /// keep the very scalars written (no normalisation to NFC or NFD).
    @Test func lettersAreKeptScalarForScalar() {
        let decomposed = "Zoe\u{0308} A\u{030A}ngstro\u{0308}m"  // NFD
        let composed = "Zo\u{00EB} \u{00C5}ngstr\u{00F6}m"  // NFC
        let (first, last) = NameSplitter.split(decomposed)
        #expect(Array(first.unicodeScalars) == Array("Zoe\u{0308}".unicodeScalars))
        #expect(Array(last.unicodeScalars) == Array("A\u{030A}ngstro\u{0308}m".unicodeScalars))
        let (first2, last2) = NameSplitter.split(composed)
        #expect(Array(first2.unicodeScalars) == Array("Zo\u{00EB}".unicodeScalars))
        #expect(Array(last2.unicodeScalars) == Array("\u{00C5}ngstr\u{00F6}m".unicodeScalars))
        // A combining mark is part of its word, never a separator.
        #expect(NameSplitter.split("Ann\u{0301} Lee").0.unicodeScalars.count == 4)
    }

    /// Characters that look like separators but are not Unicode whitespace stay in
    /// the word: zero-width space and joiner, ASCII unit/record separators.
    @Test func nonWhitespaceSeparatorsStayInTheWord() {
        #expect(NameSplitter.split("Ann\u{200B}Lee") == ("Ann\u{200B}Lee", ""))
        #expect(NameSplitter.split("Ann\u{200D}Lee Smith") == ("Ann\u{200D}Lee", "Smith"))
        #expect(NameSplitter.split("Ann\u{1F}Lee") == ("Ann\u{1F}Lee", ""))
    }

    @Test func particlesAreTheDocumentedSet() {
        #expect(
            NameSplitter.particles == [
                "da", "das", "de", "del", "della", "der", "di", "do", "dos", "du", "la", "le",
                "ten", "ter", "van", "von", "bin", "al",
            ])
    }
}

/// The byte-level path `split` takes for most names gives exactly what the
/// word-by-word rules give, on names built from every kind of piece.
@Suite struct PolicyNameSplitterFastPathTests {
    @Test func theFastPathAgreesWithTheRulesOnGeneratedNames() {
        let pieces = [
            "Ann", "José", "Zoë", "Łukasz", "da", "de", "la", "van", "der", "Silva", "ÅSA", "李", "O'Neil", "Jean-Luc",
            "x", "DA", "al", "bin", "🙂", "é",
        ]
        let spaces = [" ", "  ", "\t", "\n", " \r\n ", "\u{00A0}", "\u{2003}", "\u{3000}", "\u{0085}", "\u{000B}"]
        var generator = SystemRandomNumberGenerator()
        var checked = 0
        for _ in 0..<20_000 {
            var name = Bool.random(using: &generator) ? spaces.randomElement(using: &generator)! : ""
            for k in 0..<Int.random(in: 0...10, using: &generator) {
                if k > 0 { name += Bool.random(using: &generator) ? " " : spaces.randomElement(using: &generator)! }
                name += pieces.randomElement(using: &generator)!
            }
            if Bool.random(using: &generator) { name += spaces.randomElement(using: &generator)! }
            let fast = NameSplitter.split(name), reference = NameSplitter.splitByWords(name)
            #expect(fast == reference, "\(name.debugDescription)")
            if fast != reference { break }
            checked += 1
        }
        #expect(checked == 20_000)
    }
}
