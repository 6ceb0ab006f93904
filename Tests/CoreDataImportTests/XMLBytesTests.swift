import Foundation
import Testing

@testable import CoreDataImport

/// The UTF-8 check run before `XMLParser` (which traps on a name that is not UTF-8).
@Suite struct XMLBytesTests {
    static func problem(_ bytes: [UInt8]) -> String? {
        XMLBytes.problem(in: Data(bytes)).map { "\($0.line):\($0.column): \($0.message.prefix(60))" }
    }

    @Test func validUTF8PassesWhateverItsCharacters() {
        #expect(Self.problem(Array("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<a b=\"café 日本 😀\"/>\n".utf8)) == nil)
        #expect(Self.problem([0xEF, 0xBB, 0xBF] + Array("<a/>".utf8)) == nil)
    }

    /// Overlong forms, surrogates, values above U+10FFFF, stray continuation bytes
    /// and sequences cut short are refused at the byte's line and column.
    @Test func everyMalformedSequenceIsFoundAtItsPosition() {
        let cases: [([UInt8], String)] = [
            ([0xFF], "2:3: not UTF-8: byte 0xFF cannot start or continue a UTF-8 charac"),
            ([0xC0, 0x80], "2:3: not UTF-8: byte 0xC0 cannot start or continue a UTF-8 charac"),
            ([0xED, 0xA0, 0x80], "2:3: not UTF-8: byte 0xED cannot start or continue a UTF-8 charac"),
            ([0xF4, 0x90, 0x80, 0x80], "2:3: not UTF-8: byte 0xF4 cannot start or continue a UTF-8 charac"),
            ([0x80], "2:3: not UTF-8: byte 0x80 cannot start or continue a UTF-8 charac"),
            ([0xE2, 0x82], "2:3: not UTF-8: byte 0xE2 cannot start or continue a UTF-8 charac"),
        ]
        for (bad, expected) in cases {
            let bytes = Array("<?xml version=\"1.0\"?>\n<é".utf8) + bad + Array("b/>\n".utf8)
            #expect(Self.problem(bytes) == expected, "\(bad)")
        }
    }

    /// libxml2 transcodes other encodings (names reach the parser as UTF-8): not checked.
    @Test func otherEncodingsAreLeftToTheParser() {
        #expect(
            Self.problem(
                Array("<?xml version='1.0' encoding='ISO-8859-1'?>\n<a b=\"".utf8) + [0xE9] + Array("\"/>".utf8)) == nil
        )
        #expect(Self.problem([0xFF, 0xFE, 0x3C, 0x00, 0x61, 0x00]) == nil)
        #expect(
            Self.problem(Array("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<a".utf8) + [0xE9] + Array("/>".utf8))
                == "2:3: not UTF-8: byte 0xE9 cannot start or continue a UTF-8 charac")
    }
}
