/// A 32-byte SHA-256 digest: an entity or property version hash, or a layout hash.
/// Encoded in JSON as lowercase hex.
public struct VersionHash: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    /// The 32 bytes.
    public let bytes: [UInt8]

    /// Wraps bytes (32 for SHA-256).
    public init(bytes: [UInt8]) { self.bytes = bytes }

    /// Parses lowercase or uppercase hex; `nil` when malformed.
    public init?(hex: String) {
        let chars = Array(hex.utf8)
        guard chars.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(chars.count / 2)
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case 48...57: c - 48
            case 97...102: c - 87
            case 65...70: c - 55
            default: nil
            }
        }
        var i = 0
        while i < chars.count {
            guard let hi = nibble(chars[i]), let lo = nibble(chars[i + 1]) else { return nil }
            bytes.append(hi << 4 | lo)
            i += 2
        }
        self.bytes = bytes
    }

    /// Lowercase hex.
    public var hex: String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The first 8 hex digits, for summaries.
    public var short: String { String(hex.prefix(8)) }

    public var description: String { hex }

    public static func < (lhs: VersionHash, rhs: VersionHash) -> Bool { lhs.bytes.lexicographicallyPrecedes(rhs.bytes) }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(hex)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let value = VersionHash(hex: text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "expected hex digits")
        }
        self = value
    }
}
