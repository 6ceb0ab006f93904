// SHA-256 and SHA-512 (FIPS 180-4), in tree rather than from swift-crypto: version hashes need
// nothing else from it, and building it (BoringSSL's C sources, swift-asn1) was more than half the
// steps of a clean debug build. Checked against NIST's example vectors and Python's hashlib in
// `SHA2Tests`, and against the version hashes of Apple's Core Data in `AppleParityTests`.
//
// Both hashers are plain values that allocate nothing until `finalize()` returns the digest: the
// state and the unfinished block are kept inline, and whole blocks are compressed straight from
// the caller's bytes.

/// FIPS 180-4 SHA-256: fed with `update(_:)` any number of times, read with `finalize()`.
struct SHA256: Sendable {
    /// H(0), the first 32 bits of the fractional parts of the square roots of the first 8 primes.
    private var state: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) = (
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19
    )
    private var blocks = MessageBlocks(blockSize: 64)

    /// A hasher that has seen no bytes.
    init() {}

    /// The digest (32 bytes) of `bytes`.
    static func hash(_ bytes: [UInt8]) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(bytes)
        return hasher.finalize()
    }

    /// Appends bytes to the message.
    mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// Appends bytes to the message.
    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        // A local copy of the state, so that the closure does not capture `self` while `blocks`
        // (part of it) is being modified.
        var state = self.state
        blocks.append(bytes) { Self.compress(&state, $0) }
        self.state = state
    }

    /// The digest (32 bytes) of the bytes appended so far. The hasher is left as it was, so more
    /// bytes can follow for a digest of a longer message.
    func finalize() -> [UInt8] {
        var state = self.state
        blocks.finish(lengthSize: 8) { Self.compress(&state, $0) }
        var digest: [UInt8] = []
        digest.reserveCapacity(32)
        for word in [state.0, state.1, state.2, state.3, state.4, state.5, state.6, state.7] {
            withUnsafeBytes(of: word.bigEndian) { digest.append(contentsOf: $0) }
        }
        return digest
    }

    /// K, the first 32 bits of the fractional parts of the cube roots of the first 64 primes.
    private static let roundConstants: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    /// The compression function (FIPS 180-4, 6.2.2) on one 64-byte block.
    private static func compress(
        _ state: inout (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32), _ block: UnsafeRawPointer
    ) {
        // The message schedule on the stack: a heap array per block would cost more than the rounds.
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
            for t in 0..<16 {
                w[t] = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: t * 4, as: UInt32.self))
            }
            for t in 16..<64 {
                let sigma0 = rotate(w[t - 15], 7) ^ rotate(w[t - 15], 18) ^ (w[t - 15] &>> 3)
                let sigma1 = rotate(w[t - 2], 17) ^ rotate(w[t - 2], 19) ^ (w[t - 2] &>> 10)
                w[t] = sigma1 &+ w[t - 7] &+ sigma0 &+ w[t - 16]
            }
            var (a, b, c, d, e, f, g, h) = state
            roundConstants.withUnsafeBufferPointer { k in
                for t in 0..<64 {
                    let sum1 = rotate(e, 6) ^ rotate(e, 11) ^ rotate(e, 25)
                    let choice = (e & f) ^ (~e & g)
                    let t1 = h &+ sum1 &+ choice &+ k[t] &+ w[t]
                    let sum0 = rotate(a, 2) ^ rotate(a, 13) ^ rotate(a, 22)
                    let majority = (a & b) ^ (a & c) ^ (b & c)
                    let t2 = sum0 &+ majority
                    h = g
                    g = f
                    f = e
                    e = d &+ t1
                    d = c
                    c = b
                    b = a
                    a = t1 &+ t2
                }
            }
            state = (
                state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d,
                state.4 &+ e, state.5 &+ f, state.6 &+ g, state.7 &+ h
            )
        }
    }
}

/// FIPS 180-4 SHA-512: fed with `update(_:)` any number of times, read with `finalize()`.
struct SHA512: Sendable {
    /// H(0), the first 64 bits of the fractional parts of the square roots of the first 8 primes.
    private var state: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (
        0x6a09_e667_f3bc_c908, 0xbb67_ae85_84ca_a73b, 0x3c6e_f372_fe94_f82b, 0xa54f_f53a_5f1d_36f1,
        0x510e_527f_ade6_82d1, 0x9b05_688c_2b3e_6c1f, 0x1f83_d9ab_fb41_bd6b, 0x5be0_cd19_137e_2179
    )
    private var blocks = MessageBlocks(blockSize: 128)

    /// A hasher that has seen no bytes.
    init() {}

    /// The digest (64 bytes) of `bytes`.
    static func hash(_ bytes: [UInt8]) -> [UInt8] {
        var hasher = SHA512()
        hasher.update(bytes)
        return hasher.finalize()
    }

    /// Appends bytes to the message.
    mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// Appends bytes to the message.
    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        // A local copy of the state, as in `SHA256.update(_:)`.
        var state = self.state
        blocks.append(bytes) { Self.compress(&state, $0) }
        self.state = state
    }

    /// The digest (64 bytes) of the bytes appended so far. The hasher is left as it was.
    func finalize() -> [UInt8] {
        var state = self.state
        blocks.finish(lengthSize: 16) { Self.compress(&state, $0) }
        var digest: [UInt8] = []
        digest.reserveCapacity(64)
        for word in [state.0, state.1, state.2, state.3, state.4, state.5, state.6, state.7] {
            withUnsafeBytes(of: word.bigEndian) { digest.append(contentsOf: $0) }
        }
        return digest
    }

    /// K, the first 64 bits of the fractional parts of the cube roots of the first 80 primes.
    private static let roundConstants: [UInt64] = [
        0x428a_2f98_d728_ae22, 0x7137_4491_23ef_65cd, 0xb5c0_fbcf_ec4d_3b2f, 0xe9b5_dba5_8189_dbbc,
        0x3956_c25b_f348_b538, 0x59f1_11f1_b605_d019, 0x923f_82a4_af19_4f9b, 0xab1c_5ed5_da6d_8118,
        0xd807_aa98_a303_0242, 0x1283_5b01_4570_6fbe, 0x2431_85be_4ee4_b28c, 0x550c_7dc3_d5ff_b4e2,
        0x72be_5d74_f27b_896f, 0x80de_b1fe_3b16_96b1, 0x9bdc_06a7_25c7_1235, 0xc19b_f174_cf69_2694,
        0xe49b_69c1_9ef1_4ad2, 0xefbe_4786_384f_25e3, 0x0fc1_9dc6_8b8c_d5b5, 0x240c_a1cc_77ac_9c65,
        0x2de9_2c6f_592b_0275, 0x4a74_84aa_6ea6_e483, 0x5cb0_a9dc_bd41_fbd4, 0x76f9_88da_8311_53b5,
        0x983e_5152_ee66_dfab, 0xa831_c66d_2db4_3210, 0xb003_27c8_98fb_213f, 0xbf59_7fc7_beef_0ee4,
        0xc6e0_0bf3_3da8_8fc2, 0xd5a7_9147_930a_a725, 0x06ca_6351_e003_826f, 0x1429_2967_0a0e_6e70,
        0x27b7_0a85_46d2_2ffc, 0x2e1b_2138_5c26_c926, 0x4d2c_6dfc_5ac4_2aed, 0x5338_0d13_9d95_b3df,
        0x650a_7354_8baf_63de, 0x766a_0abb_3c77_b2a8, 0x81c2_c92e_47ed_aee6, 0x9272_2c85_1482_353b,
        0xa2bf_e8a1_4cf1_0364, 0xa81a_664b_bc42_3001, 0xc24b_8b70_d0f8_9791, 0xc76c_51a3_0654_be30,
        0xd192_e819_d6ef_5218, 0xd699_0624_5565_a910, 0xf40e_3585_5771_202a, 0x106a_a070_32bb_d1b8,
        0x19a4_c116_b8d2_d0c8, 0x1e37_6c08_5141_ab53, 0x2748_774c_df8e_eb99, 0x34b0_bcb5_e19b_48a8,
        0x391c_0cb3_c5c9_5a63, 0x4ed8_aa4a_e341_8acb, 0x5b9c_ca4f_7763_e373, 0x682e_6ff3_d6b2_b8a3,
        0x748f_82ee_5def_b2fc, 0x78a5_636f_4317_2f60, 0x84c8_7814_a1f0_ab72, 0x8cc7_0208_1a64_39ec,
        0x90be_fffa_2363_1e28, 0xa450_6ceb_de82_bde9, 0xbef9_a3f7_b2c6_7915, 0xc671_78f2_e372_532b,
        0xca27_3ece_ea26_619c, 0xd186_b8c7_21c0_c207, 0xeada_7dd6_cde0_eb1e, 0xf57d_4f7f_ee6e_d178,
        0x06f0_67aa_7217_6fba, 0x0a63_7dc5_a2c8_98a6, 0x113f_9804_bef9_0dae, 0x1b71_0b35_131c_471b,
        0x28db_77f5_2304_7d84, 0x32ca_ab7b_40c7_2493, 0x3c9e_be0a_15c9_bebc, 0x431d_67c4_9c10_0d4c,
        0x4cc5_d4be_cb3e_42b6, 0x597f_299c_fc65_7e2a, 0x5fcb_6fab_3ad6_faec, 0x6c44_198c_4a47_5817,
    ]

    /// The compression function (FIPS 180-4, 6.4.2) on one 128-byte block.
    private static func compress(
        _ state: inout (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64), _ block: UnsafeRawPointer
    ) {
        // The message schedule on the stack, as in SHA-256.
        withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 80) { w in
            for t in 0..<16 {
                w[t] = UInt64(bigEndian: block.loadUnaligned(fromByteOffset: t * 8, as: UInt64.self))
            }
            for t in 16..<80 {
                let sigma0 = rotate(w[t - 15], 1) ^ rotate(w[t - 15], 8) ^ (w[t - 15] &>> 7)
                let sigma1 = rotate(w[t - 2], 19) ^ rotate(w[t - 2], 61) ^ (w[t - 2] &>> 6)
                w[t] = sigma1 &+ w[t - 7] &+ sigma0 &+ w[t - 16]
            }
            var (a, b, c, d, e, f, g, h) = state
            roundConstants.withUnsafeBufferPointer { k in
                for t in 0..<80 {
                    let sum1 = rotate(e, 14) ^ rotate(e, 18) ^ rotate(e, 41)
                    let choice = (e & f) ^ (~e & g)
                    let t1 = h &+ sum1 &+ choice &+ k[t] &+ w[t]
                    let sum0 = rotate(a, 28) ^ rotate(a, 34) ^ rotate(a, 39)
                    let majority = (a & b) ^ (a & c) ^ (b & c)
                    let t2 = sum0 &+ majority
                    h = g
                    g = f
                    f = e
                    e = d &+ t1
                    d = c
                    c = b
                    b = a
                    a = t1 &+ t2
                }
            }
            state = (
                state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d,
                state.4 &+ e, state.5 &+ f, state.6 &+ g, state.7 &+ h
            )
        }
    }
}

/// ROTR^n(x) on 32-bit words; concrete rather than generic so that debug builds (the tests) stay quick.
@inline(__always)
private func rotate(_ x: UInt32, _ n: UInt32) -> UInt32 {
    (x &>> n) | (x &<< (32 &- n))
}

/// ROTR^n(x) on 64-bit words.
@inline(__always)
private func rotate(_ x: UInt64, _ n: UInt64) -> UInt64 {
    (x &>> n) | (x &<< (64 &- n))
}

/// A SHA-2 message cut into blocks for the compression function: whole blocks go to it as they
/// arrive, the start of the next one waits here, and `finish` pads the end (FIPS 180-4, 5.1).
private struct MessageBlocks: Sendable {
    /// 128 bytes, the larger block size, as a tuple: stored inline, unlike an array.
    private typealias Block = (
        UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
        UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64
    )

    /// 64 bytes for SHA-256, 128 for SHA-512.
    let blockSize: Int
    /// The bytes of an unfinished block, inline so that hashers copy without allocating.
    private var pending: Block = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    /// How many bytes of `pending` are used: always less than `blockSize`.
    private var pendingCount = 0
    /// The length of the message so far; the padding ends with it, in bits.
    private var byteCount: UInt64 = 0

    init(blockSize: Int) {
        self.blockSize = blockSize
    }

    /// Adds bytes to the message, calling `compress` with each block that is complete.
    mutating func append(_ bytes: UnsafeRawBufferPointer, compress: (UnsafeRawPointer) -> Void) {
        guard var input = bytes.baseAddress, !bytes.isEmpty else { return }
        var remaining = bytes.count
        byteCount &+= UInt64(remaining)
        // Locals rather than `self` inside the closure: `pending` is being modified meanwhile.
        let blockSize = self.blockSize
        var used = pendingCount
        withUnsafeMutableBytes(of: &pending) { pending in
            let start = pending.baseAddress!
            if used > 0 {
                let taken = min(blockSize - used, remaining)
                (start + used).copyMemory(from: input, byteCount: taken)
                used += taken
                input += taken
                remaining -= taken
                guard used == blockSize else { return }
                compress(start)
                used = 0
            }
            // Whole blocks straight from the caller's bytes: no copy for the bulk of a long message.
            while remaining >= blockSize {
                compress(input)
                input += blockSize
                remaining -= blockSize
            }
            start.copyMemory(from: input, byteCount: remaining)
            used = remaining
        }
        pendingCount = used
    }

    /// Pads the message and calls `compress` with its last one or two blocks: the pending bytes, a
    /// 1 bit, zeros, and the length in bits as a big-endian number of `lengthSize` bytes (8 for
    /// SHA-256, 16 for SHA-512).
    func finish(lengthSize: Int, compress: (UnsafeRawPointer) -> Void) {
        let used = pendingCount
        let total = used + 1 + lengthSize <= blockSize ? blockSize : 2 * blockSize
        let bitsHigh = byteCount &>> 61
        let bitsLow = byteCount &<< 3
        withUnsafeTemporaryAllocation(byteCount: 2 * blockSize, alignment: 8) { tail in
            tail.initializeMemory(as: UInt8.self, repeating: 0)
            withUnsafeBytes(of: pending) { pending in
                tail.baseAddress!.copyMemory(from: pending.baseAddress!, byteCount: used)
            }
            tail[used] = 0x80
            // SHA-512's 128-bit length field: its high half holds the top bits of the bit count.
            if lengthSize == 16 {
                tail.storeBytes(of: bitsHigh.bigEndian, toByteOffset: total - 16, as: UInt64.self)
            }
            tail.storeBytes(of: bitsLow.bigEndian, toByteOffset: total - 8, as: UInt64.self)
            for offset in stride(from: 0, to: total, by: blockSize) {
                compress(tail.baseAddress! + offset)
            }
        }
    }
}
