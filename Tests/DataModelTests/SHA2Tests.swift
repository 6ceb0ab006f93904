import Testing

@testable import DataModel

/// The in-tree SHA-256 and SHA-512 (Sources/DataModel/Compilation/SHA2.swift). The named messages are
/// NIST's FIPS 180-4 examples (the CAVP short and long messages and the one-million-`a` vector); the
/// block-boundary digests were computed with Python's hashlib, not by this code. `AppleParityTests`
/// checks the same functions end to end against version hashes that Apple's Core Data wrote.
@Suite struct SHA2Tests {
    /// A NIST example message with its digests.
    struct Vector: Sendable, CustomTestStringConvertible {
        let name: String
        let message: [UInt8]
        let sha256: String
        let sha512: String
        var testDescription: String { name }
    }

    static let nist: [Vector] = [
        Vector(
            name: "empty", message: [],
            sha256: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            sha512: "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce"
                + "47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e"),
        Vector(
            name: "abc", message: Array("abc".utf8),
            sha256: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
            sha512: "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
                + "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"),
        Vector(
            name: "448 bits", message: Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8),
            sha256: "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
            sha512: "204a8fc6dda82f0a0ced7beb8e08a41657c16ef468b228a8279be331a703c335"
                + "96fd15c13b1b07f9aa1d3bea57789ca031ad85c7a71dd70354ec631238ca3445"),
        Vector(
            name: "896 bits",
            message: Array(
                ("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
                    + "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu").utf8),
            sha256: "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1",
            sha512: "8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018"
                + "501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909"),
        Vector(
            name: "one million a", message: [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000),
            sha256: "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
            sha512: "e718483d0ce769644e2e42c7bc15b4638e1f98b13b2044285632a803afa973eb"
                + "de0ff244877ea60a4cb0432ce577c31beb009c5c2c49aa2e4eadb217ad8cc09b"),
    ]

    /// `(i * 31 + 7) mod 256` for i < count: every byte value, none repeated within a block,
    /// so a byte out of place changes the digest. Python: `bytes((i * 31 + 7) % 256 for i in range(n))`.
    static func pattern(_ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
    }

    /// Lengths around the padding's edges: 55/56 and 111/112 are the most that fit the length field
    /// in the last block of SHA-256 and SHA-512; 63/64/65 and 127/128/129 sit on the block sizes.
    /// Values: `hashlib.sha256(pattern(n)).hexdigest()` and `hashlib.sha512(…)`.
    static let boundaries: [(length: Int, sha256: String, sha512: String)] = [
        (
            55, "8aa994584139d128848eeebc4e815639ba5ab6e6e39574195a63ac4f14f7c43b",
            "330eb5e81b4d722cae1e0efbf883efb180c3e346d2b3b797dafc90409583ed35"
                + "af65dc2d7974a353f0c21663e196b60d3ee5a2c70c50b7b3bccdb93a5dbce6bf"
        ),
        (
            56, "ad574708f75c044c9b85de64cb568ee7711ff4f36448c6242f053ba8f6cc2b63",
            "1b5b63bfd5420b2dc480abce3dbdb3e19e5f9d4fabffba7764883937eaae878a"
                + "55362c938c141712c44c3076c3fabb2c60814c2994c311c33049a8d6de2a8898"
        ),
        (
            63, "280ed3e8ff1df845b2e7dfe6ac6cee817bef20e783cc65abc41b818b4d2fe076",
            "b16f76c30db64b5ee1ef166d2d37e13ff6cee9fd88bae9ba283cd58e0a2133b2"
                + "20a76db56279406461f84ce2cffd1d116d38fd9f38fc5df18770a987ff695499"
        ),
        (
            64, "c6ab9724ade5b6a7a1edfffb12f3aa9181351355af8fd08c919952ad211339dd",
            "4c7aba3659929c4fd87604c532a3b5f174d0626b2d661dbbbfac76c97a49a5a7"
                + "789d2c68324c754f66bf629fa72054f334feaad8b1cf4c885ae03a1e634afc18"
        ),
        (
            65, "788367c73c7ddf4c53f65e68cc0d943e6227ab55b0e78ba63ace822b1c6301c0",
            "31ad8ce60482e91ec7f83455c280f2dbb4940a400795ae90815bc86891210ebe"
                + "07b51995eb2d123d6a55a79a998e20cc07716aea7848f6c955b4a4bf14ad0b0a"
        ),
        (
            111, "dd1413178fb627f9abbc041ffe39c44aa7aaa0e2e6d2ca5c4528ac7073a2da45",
            "da780d8338a8a920ceb6892cb4ecbb0cc0c66956269aadd5dd0f48790a00857b"
                + "d975890f3b2955a317738cc7a770820c29f922ffbc22020f1909d594cc987d1b"
        ),
        (
            112, "a65c92dac124062d0ab951a42773cb04fc98d1d4bf8897b176f8cff3509d379e",
            "053182f7fa4e59f8636e415a77ed4fdc650f0a43834c9d35adf899599c3ab9c4"
                + "153f02ff50bd01888060cd36a6fa12d9db242fc35164c80135613514186d5843"
        ),
        (
            127, "192409cd280e14b743642ad1343fbd3e82d9305de72c078117745a679210cc3d",
            "a7a75593826fd37d4e60f6101eabb9f8ab1cf4d5319ebc805266d5da8deb5097"
                + "de1a235fc5d9d3d73c50ac100ffc75089fb454674ab61232091bd19cbdc67396"
        ),
        (
            128, "cc548ca2dec1f6fe4f58b2e27aa9c7521607df1130d140b55a4dad0665302356",
            "df007a08f3aaae47e0c92ef840ecd43645ae6098c819f2a4a66174ef1cd49e5c"
                + "6dfccf0616895e570b7564af641de5863dff9f89c752913d30cf0ecf678e1635"
        ),
        (
            129, "81e89a7b2911aaa7795f9e3d4910cb47d6cd2b00d83b8399481527261a1a7519",
            "a10ea769b79831bca33e9efb29fc501ded6e9c88885d079acb76eecaa8ac58d6"
                + "8bdc7e00103053e1519352c0d064c87accc3d553a6039decc2c4f1e7667eef79"
        ),
        (
            200, "44cae5223d431caed4a9e32271d6abf17c3f2f4abac45fcdb48a99fcc6072a09",
            "5d625ba6509497bd2ca98040de4ae84cdf2ecd52a5340287d3ca2e4fb1eeb543"
                + "5ad15f7775f714e2ae44173e6a8838902c223d223bf324cdd01c93626d9de5ae"
        ),
    ]

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16) }.map { $0.count == 1 ? "0" + $0 : $0 }.joined()
    }

    @Test(arguments: nist)
    func nistVectors(_ vector: Vector) {
        #expect(Self.hex(SHA256.hash(vector.message)) == vector.sha256)
        #expect(Self.hex(SHA512.hash(vector.message)) == vector.sha512)
    }

    /// The million `a`s fed a thousand at a time, as a long file would arrive.
    @Test func oneMillionInChunks() {
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
        var sha256 = SHA256()
        var sha512 = SHA512()
        for _ in 0..<1000 {
            sha256.update(chunk)
            sha512.update(chunk)
        }
        let vector = Self.nist.last!
        #expect(Self.hex(sha256.finalize()) == vector.sha256)
        #expect(Self.hex(sha512.finalize()) == vector.sha512)
    }

    @Test func blockBoundaries() {
        for (length, sha256, sha512) in Self.boundaries {
            let message = Self.pattern(length)
            #expect(Self.hex(SHA256.hash(message)) == sha256, "SHA-256 of \(length) bytes")
            #expect(Self.hex(SHA512.hash(message)) == sha512, "SHA-512 of \(length) bytes")
        }
    }

    /// Two updates split anywhere give the one-shot digest: a split inside a block, on its
    /// edge, or with an empty half must all leave the pending bytes right.
    @Test func splitAtEveryOffset() {
        let message = Self.pattern(200)
        let whole256 = SHA256.hash(message)
        let whole512 = SHA512.hash(message)
        for offset in 0...message.count {
            var sha256 = SHA256()
            var sha512 = SHA512()
            sha256.update(Array(message[..<offset]))
            sha256.update(Array(message[offset...]))
            sha512.update(Array(message[..<offset]))
            sha512.update(Array(message[offset...]))
            #expect(sha256.finalize() == whole256, "SHA-256 split at \(offset)")
            #expect(sha512.finalize() == whole512, "SHA-512 split at \(offset)")
        }
    }

    /// A byte at a time, through the raw-buffer entry point.
    @Test func byteAtATime() {
        let message = Self.pattern(200)
        var sha256 = SHA256()
        var sha512 = SHA512()
        message.withUnsafeBytes { bytes in
            for index in bytes.indices {
                let one = UnsafeRawBufferPointer(rebasing: bytes[index..<index + 1])
                sha256.update(one)
                sha512.update(one)
            }
        }
        #expect(Self.hex(sha256.finalize()) == Self.boundaries.last!.sha256)
        #expect(Self.hex(sha512.finalize()) == Self.boundaries.last!.sha512)
    }

    /// `finalize()` leaves the hasher as it was: reading a digest midway does not disturb the
    /// digest of the whole message.
    @Test func finalizeDoesNotConsume() {
        let message = Self.pattern(129)
        var sha256 = SHA256()
        var sha512 = SHA512()
        sha256.update(Array(message[..<70]))
        sha512.update(Array(message[..<70]))
        #expect(sha256.finalize() == SHA256.hash(Array(message[..<70])))
        #expect(sha512.finalize() == SHA512.hash(Array(message[..<70])))
        sha256.update(Array(message[70...]))
        sha512.update(Array(message[70...]))
        #expect(sha256.finalize() == SHA256.hash(message))
        #expect(sha512.finalize() == SHA512.hash(message))
    }
}
