import Testing

@testable import SQLiteStore

@Suite struct BinaryPropertyListTests {
    // MARK: Apple-written metadata

    /// `Z_METADATA.Z_PLIST` of CoreDataPlus's `SampleModel_V1.sqlite`, written by Core Data
    /// on Apple hardware (NSPersistenceFrameworkVersion 1044). Its key order is
    /// CoreFoundation's hash order, not ours.
    static let appleMetadataHex = """
        62706C6973743030D701020304050607080A0B0C0D16175F101E4E5353746F72654D6F64656C56657273696F6E4964656E74\
        6966696572735B4E5353746F7265547970655F10125F4E534175746F56616375756D4C6576656C5F101F4E5353746F72654D\
        6F64656C56657273696F6E4861736865734469676573745F10194E5353746F72654D6F64656C56657273696F6E4861736865\
        735F101D4E5350657273697374656E63654672616D65776F726B56657273696F6E5F10204E5353746F72654D6F64656C5665\
        7273696F6E48617368657356657273696F6EA10951315653514C69746551325F105866414376777874793051577269744B46\
        58332F4C5474585A76493634556E46635274503671636A5731596C306F77722B72482B537043767A792F75445952706B6E4D\
        5862676163643373726E39776D45324B6B4C38513D3DD40E0F1011121314155853706F727443617256506572736F6E5F1011\
        457870656E7369766553706F7274436172534361724F1020514EC1907A568299F9FB6851106516136F0755F45FA53A823A0E\
        4D44013D53134F1020164268551B45108AE763AA2BA61FF32D32D32323850987C3E21607C8DA44B72B4F10203DC7E32B1BE4\
        5B5A4C795AC9AF3E1D10AA7222D3C69AE805BBEB4408BDEBA4804F10209E555529072158220D1BACD2F80A3DAD4919F74A32\
        AA8BE9EE22A6A7B4126C8F110414100300080017003800440059007B009700B700DA00DC00DE00E500E70142014B0154015B\
        016F0173019601B901DC01FF02020000000000000201000000000000001800000000000000000000000000000204
        """

    @Test func decodesAppleWrittenCoreDataMetadata() throws {
        let metadata = try BinaryPropertyList.decode(bytes(hex: Self.appleMetadataHex))

        #expect(metadata["NSStoreType"] == .string("SQLite"))
        #expect(metadata["NSStoreModelVersionHashesVersion"] == .integer(3))
        #expect(metadata["NSPersistenceFrameworkVersion"] == .integer(1044))
        #expect(metadata["NSStoreModelVersionIdentifiers"] == .array(["1"]))
        #expect(metadata["_NSAutoVacuumLevel"] == .string("2"))
        #expect(
            metadata["NSStoreModelVersionHashesDigest"]
                == .string(
                    "fACvwxty0QWritKFX3/LTtXZvI64UnFcRtP6qcjW1Yl0owr+rH+SpCvzy/uDYRpknMXbgacd3srn9wmE2KkL8Q=="))
        let hashes = try #require(metadata["NSStoreModelVersionHashes"]?.dictionaryValue)
        #expect(
            hashes.mapValues { $0.dataValue.map(hex) } == [
                "Car": "9e555529072158220d1bacd2f80a3dad4919f74a32aa8be9ee22a6a7b4126c8f",
                "ExpensiveSportCar": "3dc7e32b1be45b5a4c795ac9af3e1d10aa7222d3c69ae805bbeb4408bdeba480",
                "Person": "164268551b45108ae763aa2ba61ff32d32d32323850987c3e21607c8da44b72b",
                "SportCar": "514ec1907a568299f9fb6851106516136f0755f45fa53a823a0e4d44013d5313",
            ])
        #expect(metadata.dictionaryValue?.count == 7)
    }

    @Test func reencodedAppleMetadataDecodesEqual() throws {
        let metadata = try BinaryPropertyList.decode(bytes(hex: Self.appleMetadataHex))
        let encoded = BinaryPropertyList.encode(metadata)
        #expect(try BinaryPropertyList.decode(encoded) == metadata)
        // Apple uniques the "1" shared by no one else and the 24 objects stay 24.
        #expect(trailer(of: encoded).objectCount == 24)
    }

    // MARK: Exact encodings

    @Test func encodesIntegerOneExactly() {
        #expect(
            hex(BinaryPropertyList.encode(.integer(1))) == "62706c6973743030" + "1001" + "08" + "000000000000" + "01"
                + "01"
                + "0000000000000001" + "0000000000000000" + "000000000000000a")
    }

    /// The same bytes as `plistlib.dumps(value, fmt=FMT_BINARY, sort_keys=True)`.
    @Test func encodesLikePythonPlistlibWithSortedKeys() {
        let value: PropertyListValue = ["b": [1, "é", .string(String(repeating: "x", count: 15))], "a": true, "B": -1]
        #expect(
            hex(BinaryPropertyList.encode(value)) == """
                62706c6973743030d301020304050651425161516213ffffffffffffffff09a307080910016100e95f100f7878787878787878\
                78787878787878080f1113151e1f2325280000000000000101000000000000000a0000000000000000000000000000003a
                """)
    }

    @Test(arguments: [
        (Int64(0), "1000"), (255, "10ff"), (256, "110100"), (65535, "11ffff"), (65536, "1200010000"),
        (4_294_967_295, "12ffffffff"), (4_294_967_296, "130000000100000000"),
        (.max, "137fffffffffffffff"), (-1, "13ffffffffffffffff"), (.min, "138000000000000000"),
    ])
    func integersUseTheSmallestWidthAndNegativesUseEight(value: Int64, expected: String) {
        #expect(hex(objectData(BinaryPropertyList.encode(.integer(value)))) == expected)
    }

    @Test(arguments: [
        ("", "50"), ("abc", "53616263"), ("fourteen chars", "5e" + hex(Array("fourteen chars".utf8))),
        ("fifteen chars!!", "5f100f" + hex(Array("fifteen chars!!".utf8))),
        ("é", "6100e9"), ("🎉", "62d83cdf89"), ("aé", "62006100e9"),
    ])
    func stringsAreASCIIOrUTF16BigEndian(value: String, expected: String) {
        #expect(hex(objectData(BinaryPropertyList.encode(.string(value)))) == expected)
    }

    @Test func scalarsAreStoredOnceAndContainersNever() {
        let encoded = BinaryPropertyList.encode(["a", "a", 1, 1, .real(1), [], [], .data([1]), .data([1])])
        // array, "a", 1, 1.0, [], [], data
        #expect(trailer(of: encoded).objectCount == 7)
        // -0.0 and 0.0 are different reals, unlike in Python's plistlib.
        #expect(trailer(of: BinaryPropertyList.encode([.real(0), .real(-0.0)])).objectCount == 3)
    }

    @Test func dictionaryOutputIsIndependentOfInsertionOrder() {
        var forward: [String: PropertyListValue] = [:]
        var backward: [String: PropertyListValue] = [:]
        for index in 0..<200 { forward["key\(index)"] = .integer(Int64(index)) }
        for index in (0..<200).reversed() { backward["key\(index)"] = .integer(Int64(index)) }
        #expect(BinaryPropertyList.encode(.dictionary(forward)) == BinaryPropertyList.encode(.dictionary(backward)))
    }

    @Test func widensOffsetsAndReferencesOnlyWhenNeeded() {
        let small = trailer(of: BinaryPropertyList.encode(.array((0..<254).map { .integer(Int64($0)) })))
        #expect(small.offsetSize == 2 && small.referenceSize == 1 && small.objectCount == 255)
        let large = trailer(of: BinaryPropertyList.encode(.array((0..<255).map { .integer(Int64($0)) })))
        #expect(large.referenceSize == 2 && large.objectCount == 256)
        #expect(trailer(of: BinaryPropertyList.encode(.data(Array(repeating: 7, count: 70_000)))).offsetSize == 4)
    }

    // MARK: Round trips

    @Test(arguments: [
        PropertyListValue.string(""), "ASCII", "Grüße, 世界 🎉", .string(String(repeating: "long ", count: 1000)),
        .string(String(repeating: "é", count: 20)), .integer(0), .integer(.max), .integer(.min), .integer(-1),
        .real(0), .real(-0.0), .real(.infinity), .real(-.infinity), .real(.nan),
        .real(Double(bitPattern: 0x7FF8_0000_0000_1234)), .real(.leastNonzeroMagnitude), .real(-1.25e300),
        true, false, .date(0), .date(-978_307_200), .date(723_000_000.125),
        .data([]), .data([0, 255]), .data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }),
        [], [:], [[], [:], [[[]]]], ["": "", "nested": ["deeper": [1, 2.5, "three", .data([4])]]],
        .array((0..<1000).map { .string("item \($0)") }),
    ])
    func roundTrips(value: PropertyListValue) throws {
        let decoded = try BinaryPropertyList.decode(BinaryPropertyList.encode(value))
        #expect(decoded == value)
        if case .real(let original) = value, case .real(let result) = decoded {
            #expect(result.bitPattern == original.bitPattern)
        }
    }

    // MARK: Decoding what we never write

    @Test func decodesOtherWritersEncodings() throws {
        // 16-byte integers that fit, a 4-byte real, a set, a 2-byte count, a UTF-16 key,
        // a repeated key (last wins) and an unreferenced object.
        let input = plist([
            [0xA6, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06],
            [0x14] + Array(repeating: 0xFF, count: 16),
            [0x14] + Array(repeating: 0, count: 15) + [5],
            [0x22, 0x3F, 0xC0, 0x00, 0x00],
            [0xC2, 0x07, 0x07],
            [0x4F, 0x11, 0x00, 0x02, 0xAB, 0xCD],
            [0xD3, 0x08, 0x08, 0x09, 0x07, 0x01, 0x02],
            [0x09],
            [0x61, 0x00, 0xE9],
            [0x51, 0x6B],
            [0x5F, 0x10, 0x01, 0x7A],
        ])
        #expect(
            try BinaryPropertyList.decode(input) == [
                -1, 5, 1.5, [true, true], .data([0xAB, 0xCD]), ["é": -1, "k": 5],
            ])
    }

    @Test func decodesWideOffsetsAndReferences() throws {
        let input = plist(
            [[0xA2, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1], [0x51, 0x61]],
            referenceSize: 8, offsetSize: 8)
        #expect(try BinaryPropertyList.decode(input) == ["a", "a"])
    }

    @Test func sharedSubtreesAreDecodedOnce() throws {
        // Each array holds the next one twice: 2^100 paths, 101 objects.
        let depth = 100
        let objects = (0..<depth).map { [0xA2, UInt8($0 + 1), UInt8($0 + 1)] } + [[0x10, 0x2A]]
        var value = try BinaryPropertyList.decode(plist(objects))
        for _ in 0..<depth { value = try #require(value.arrayValue?.last) }
        #expect(value == 42)
    }

    @Test func acceptsNestingUpToTheLimit() throws {
        let objects = nestedArrays(BinaryPropertyList.maximumDepth)
        #expect(try BinaryPropertyList.decode(plist(objects, referenceSize: 2)).arrayValue?.count == 1)
    }

    // MARK: Malformed input

    @Test func rejectsMissingHeader() {
        expect(Array("bplist0".utf8), .notABinaryPlist, "header: input does not start with \"bplist00\"")
        expect(
            Array("<?xml version=\"1.0\" encoding=\"UTF-8\"?><plist/>".utf8), .notABinaryPlist,
            "header: input does not start with \"bplist00\"")
    }

    @Test func rejectsInputShorterThanHeaderAndTrailer() {
        expect(
            Array("bplist00".utf8) + Array(repeating: 0, count: 31), .truncated,
            "trailer: 39 bytes are too few for the 8-byte header and the 32-byte trailer")
    }

    @Test func rejectsImpossibleTrailers() {
        let object: [[UInt8]] = [[0x09]]
        expect(plist(object, offsetSize: 0), .invalidTrailer, "trailer: offset size 0 is not between 1 and 8")
        expect(
            plist(object, referenceSize: 9), .invalidTrailer,
            "trailer: object reference size 9 is not between 1 and 8")
        expect(plist(object, objectCount: 0), .invalidTrailer, "trailer: the object count is 0")
        expect(plist(object, top: 1), .invalidTrailer, "trailer: top object 1 is out of range (object count 1)")
        expect(
            plist(object, tableOffset: 1000), .invalidTrailer,
            """
            trailer: offset table at 1000 does not fit between the header and the trailer (object count 1, offset size \
            1)
            """
        )
        expect(
            plist(object, tableOffset: 8), .invalidTrailer,
            "trailer: offset table at 8 does not fit between the header and the trailer (object count 1, offset size 1)"
        )
        expect(
            plist(object, objectCount: .max), .invalidTrailer,
            """
            trailer: offset table at 9 does not fit between the header and the trailer (object count \
            18446744073709551615, offset size 1)
            """
        )
    }

    @Test func rejectsOffsetsOutsideTheObjectData() {
        expect(plist([[0x09]], offsets: [3]), .invalidOffset, "object 0: offset 3 is outside the object data (8..<9)")
        expect(plist([[0x09]], offsets: [9]), .invalidOffset, "object 0: offset 9 is outside the object data (8..<9)")
        expect(
            plist([[0xA1, 0x05]]), .invalidOffset,
            "object 0 at offset 8: reference to object 5 is out of range (object count 1)")
    }

    @Test func rejectsObjectsWithoutAValue() {
        expect(plist([[0x00]]), .unsupportedObject, "object 0 at offset 8: null is not supported")
        expect(plist([[0x0F]]), .unsupportedObject, "object 0 at offset 8: fill byte 0x0F is not an object")
        expect(
            plist([[0x80, 0x01]]), .unsupportedObject,
            "object 0 at offset 8: UID is not supported (only NSKeyedArchiver archives use UIDs)")
        expect(plist([[0x75, 0x61]]), .unsupportedObject, "object 0 at offset 8: unknown marker 0x75")
        expect(plist([[0x15, 0x00]]), .unsupportedObject, "object 0 at offset 8: unknown marker 0x15")
        expect(plist([[0x21, 0x00, 0x00]]), .unsupportedObject, "object 0 at offset 8: unknown marker 0x21")
        expect(plist([[0x32, 0, 0, 0, 0]]), .unsupportedObject, "object 0 at offset 8: unknown marker 0x32")
        expect(plist([[0xB0]]), .unsupportedObject, "object 0 at offset 8: unknown marker 0xB0")
        expect(
            plist([[0x14] + Array(repeating: 0, count: 8) + Array(repeating: 0xFF, count: 8)]), .unsupportedObject,
            "object 0 at offset 8: 128-bit integer does not fit in 64 bits")
    }

    @Test func rejectsObjectsRunningPastTheObjectData() {
        expect(
            plist([[0x13, 0x00, 0x00]]), .truncated,
            "object 0 at offset 8: 8-byte integer runs past the end of the object data")
        expect(
            plist([[0x23, 0x00]]), .truncated, "object 0 at offset 8: 8-byte real runs past the end of the object data")
        expect(plist([[0x33]]), .truncated, "object 0 at offset 8: 8-byte date runs past the end of the object data")
        expect(
            plist([[0x55, 0x61]]), .truncated,
            "object 0 at offset 8: ASCII string of 5 bytes runs past the end of the object data")
        expect(
            plist([[0x62, 0x00, 0x61, 0x00]]), .truncated,
            "object 0 at offset 8: UTF-16 string of 2 code units runs past the end of the object data")
        expect(plist([[0x4F]]), .truncated, "object 0 at offset 8: count runs past the end of the object data")
        expect(
            plist([[0x4F, 0x11, 0x01]]), .truncated, "object 0 at offset 8: count runs past the end of the object data")
        expect(
            plist([[0x4F, 0x55]]), .invalidObject,
            "object 0 at offset 8: count marker 0x55 is not a 1, 2, 4 or 8-byte integer")
    }

    @Test func rejectsCountsLargerThanTheFile() {
        expect(
            plist([[0xAF, 0x13] + Array(repeating: 0xFF, count: 8)]), .truncated,
            "object 0 at offset 8: array of 18446744073709551615 references runs past the end of the object data")
        expect(
            plist([[0xCF, 0x12, 0x7F, 0xFF, 0xFF, 0xFF]]), .truncated,
            "object 0 at offset 8: set of 2147483647 references runs past the end of the object data")
        expect(
            plist([[0xDF, 0x11, 0xFF, 0xFF, 0x01, 0x01]]), .truncated,
            "object 0 at offset 8: dictionary of 65535 entries runs past the end of the object data")
        expect(
            plist([[0x4F, 0x13, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]]), .truncated,
            "object 0 at offset 8: data of 9223372036854775807 bytes runs past the end of the object data")
    }

    @Test func rejectsReferenceCycles() {
        expect(plist([[0xA1, 0x00]]), .cycle, "object 0 at offset 8: reference to object 0 forms a cycle")
        // array → dictionary → array
        expect(
            plist([[0xA1, 0x01], [0xD1, 0x02, 0x00], [0x51, 0x6B]]), .cycle,
            "object 1 at offset 10: reference to object 0 forms a cycle")
    }

    @Test func rejectsNestingBeyondTheLimit() {
        let depth = BinaryPropertyList.maximumDepth + 1
        expect(
            plist(nestedArrays(depth), referenceSize: 2), .tooDeep,
            "object 512 at offset \(8 + 3 * 512): nesting is deeper than 512 levels")
    }

    @Test func rejectsNonStringKeys() {
        expect(
            plist([[0xD1, 0x01, 0x01], [0x10, 0x07]]), .nonStringKey,
            "object 0 at offset 8: key object 1 is not a string")
        // A container key is refused by its marker, without being decoded.
        expect(
            plist([[0xD1, 0x01, 0x01], [0xA1, 0x00]]), .nonStringKey,
            "object 0 at offset 8: key object 1 is not a string")
    }

    @Test func rejectsInvalidStrings() {
        expect(plist([[0x51, 0xE9]]), .invalidObject, "object 0 at offset 8: ASCII string contains byte 0xE9")
        expect(
            plist([[0x61, 0xD8, 0x00]]), .invalidObject, "object 0 at offset 8: UTF-16 string has an unpaired surrogate"
        )
    }

    @Test func errorDescriptionIsTheMessage() {
        let error = PropertyListError(.cycle, "object 0 at offset 8: reference to object 0 forms a cycle")
        #expect(error.description == error.message)
        #expect(error.kind.description == "cycle")
    }

    // MARK: Accessors

    @Test func accessorsReturnOnlyTheirCase() {
        let value: PropertyListValue = [
            "s": "text", "i": 3, "r": 0.5, "b": true, "d": .date(1), "x": .data([1]), "a": [1],
        ]
        #expect(value["s"]?.stringValue == "text" && value["s"]?.integerValue == nil)
        #expect(value["i"]?.integerValue == 3 && value["r"]?.realValue == 0.5 && value["b"]?.booleanValue == true)
        #expect(value["d"]?.dateValue == 1 && value["x"]?.dataValue == [1] && value["a"]?.arrayValue == [1])
        #expect(value["missing"] == nil && value["s"]?["s"] == nil && value.dictionaryValue?.count == 7)
        #expect(PropertyListValue.real(.nan) == .real(.nan) && PropertyListValue.real(0) != .real(-0.0))
        #expect(PropertyListValue.integer(1) != .real(1) && PropertyListValue.real(1) != .date(1))
    }
}

// MARK: - Helpers

/// Expects decoding to throw exactly this error.
private func expect(
    _ input: [UInt8], _ kind: PropertyListError.Kind, _ message: String,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(throws: PropertyListError(kind, message), sourceLocation: sourceLocation) {
        try BinaryPropertyList.decode(input)
    }
}

/// Assembles a binary plist from raw object encodings; each trailer field can be forced.
/// Offsets take 1 or 2 bytes, whichever fits, unless `offsetSize` says otherwise.
private func plist(
    _ objects: [[UInt8]], referenceSize: UInt8 = 1, offsetSize: UInt8? = nil,
    objectCount: UInt64? = nil, top: UInt64 = 0, tableOffset: UInt64? = nil, offsets: [Int]? = nil
) -> [UInt8] {
    var out = Array("bplist00".utf8)
    var computed: [Int] = []
    for object in objects {
        computed.append(out.count)
        out += object
    }
    let table = out.count
    let offsetSize = offsetSize ?? (table < 256 ? 1 : 2)
    for offset in offsets ?? computed {
        out += bigEndian(UInt64(offset), size: Int(max(offsetSize, 1)))
    }
    out += [0, 0, 0, 0, 0, 0, offsetSize, referenceSize]
    out += bigEndian(objectCount ?? UInt64(objects.count), size: 8)
    out += bigEndian(top, size: 8)
    out += bigEndian(tableOffset ?? UInt64(table), size: 8)
    return out
}

/// `count` arrays each holding the next (2-byte references), the innermost empty.
private func nestedArrays(_ count: Int) -> [[UInt8]] {
    (0..<count).map { index in
        index == count - 1 ? [0xA0, 0, 0] : [0xA1] + bigEndian(UInt64(index + 1), size: 2)
    }
}

private func bigEndian(_ value: UInt64, size: Int) -> [UInt8] {
    (0..<size).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
}

private func trailer(of bytes: [UInt8]) -> (offsetSize: Int, referenceSize: Int, objectCount: Int, tableOffset: Int) {
    let start = bytes.count - 32
    func field(_ at: Int) -> Int { bytes[start + at..<start + at + 8].reduce(0) { $0 << 8 | Int($1) } }
    return (Int(bytes[start + 6]), Int(bytes[start + 7]), field(8), field(24))
}

/// The object bytes of an encoding holding a single object.
private func objectData(_ bytes: [UInt8]) -> [UInt8] {
    Array(bytes[8..<trailer(of: bytes).tableOffset])
}

private func bytes(hex: String) -> [UInt8] {
    let digits = Array(hex.utf8)
    return stride(from: 0, to: digits.count, by: 2).map {
        UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)!
    }
}

private func hex(_ bytes: [UInt8]) -> String {
    bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
}
