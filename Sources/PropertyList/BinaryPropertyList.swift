/// Apple's binary property list format (`bplist00`), in pure Swift.
///
/// Core Data keeps store metadata in `Z_METADATA.Z_PLIST` as a binary plist.
/// Foundation's `PropertyListSerialization` is avoided on purpose: its output is not
/// specified byte for byte and differs between Darwin and swift-corelibs-foundation,
/// while this implementation writes the same bytes everywhere.
///
/// The layout follows CoreFoundation's `CFBinaryPList.c`: the 8-byte header
/// `bplist00`, the objects, an offset table with one big-endian offset per object,
/// and a 32-byte trailer (5 unused bytes, the sort version, the offset size, the
/// object reference size, then the object count, the top object and the offset
/// table's position as big-endian 64-bit integers).
///
/// ```swift
/// let bytes = BinaryPropertyList.encode(["NSStoreType": "SQLite"])
/// let metadata = try BinaryPropertyList.decode(bytes)
/// metadata["NSStoreType"]?.stringValue  // "SQLite"
/// ```
package enum BinaryPropertyList {
    /// Containers nested deeper than this are rejected when decoding
    /// (``PropertyListError/Kind-swift.struct/tooDeep``).
    package static let maximumDepth = 512

    /// Encodes a value as a binary plist.
    ///
    /// The output is deterministic and matches Python's
    /// `plistlib.dumps(value, fmt=FMT_BINARY, sort_keys=True)` byte for byte:
    /// - Dictionary keys are written in ascending order of their UTF-8 bytes (the
    ///   same as Unicode code point order), keys first, then values.
    /// - Objects are numbered in pre-order, the top object first; equal strings,
    ///   numbers, booleans, dates and data (equal as encoded bytes) are stored once.
    ///   Containers are never shared.
    /// - Strings are ASCII (`0x5_`) when every character is ASCII, UTF-16BE (`0x6_`)
    ///   otherwise; counts of 15 or more follow the marker as an integer object.
    /// - Non-negative integers take the smallest of 1, 2, 4 or 8 bytes; negative
    ///   integers always take 8, as CoreFoundation writes them. Reals are 8 bytes
    ///   and keep their bit pattern (negative zero, NaN payloads).
    /// - Offsets and object references use the fewest of 1, 2, 4 or 8 bytes.
    package static func encode(_ value: PropertyListValue) -> [UInt8] {
        var writer = Writer()
        _ = writer.flatten(value)
        return writer.serialize()
    }

    /// Encodes an `NSKeyedArchiver`-style archive: as `encode`, and each
    /// `{"CF$UID": n}` dictionary becomes a UID (`decodeArchive`'s mirror).
    package static func encodeArchive(_ value: PropertyListValue) -> [UInt8] {
        var writer = Writer()
        writer.writesUIDs = true
        _ = writer.flatten(value)
        return writer.serialize()
    }

    /// Decodes a binary plist.
    ///
    /// Accepts every object type of `bplist00` that has a ``PropertyListValue``
    /// counterpart: booleans; 1, 2, 4 and 8-byte integers, and 16-byte integers
    /// whose value fits in `Int64`; 4 and 8-byte reals (4-byte reals widen to
    /// `Double`); dates; data; ASCII and UTF-16BE strings; arrays; sets (decoded as
    /// arrays); and dictionaries with string keys (a repeated key keeps its last value).
    ///
    /// Rejected with ``PropertyListError/Kind-swift.struct/unsupportedObject``: null,
    /// fill bytes, unknown markers, and UIDs (`0x8_`). UIDs only occur in
    /// `NSKeyedArchiver` archives, never in Core Data metadata; decoding them as
    /// integers would silently re-encode them as a different type.
    ///
    /// Hostile input throws rather than crashes or hangs: every read is bounds-checked
    /// against the object area (between the header and the offset table), counts
    /// larger than the remaining bytes are refused before anything is allocated,
    /// reference cycles and nesting beyond ``maximumDepth`` are detected, and each
    /// object is decoded once, so shared subtrees cost nothing extra.
    package static func decode(_ bytes: [UInt8]) throws(PropertyListError) -> PropertyListValue {
        var reader = try Reader(bytes)
        return try reader.object(reader.topObject)
    }

    /// Decodes an `NSKeyedArchiver` archive (Xcode 3's data models are some): as
    /// `decode`, and each UID becomes `{"CF$UID": n}`, as XML property lists write
    /// it. Only for archives: nothing re-encodes these.
    package static func decodeArchive(_ bytes: [UInt8]) throws(PropertyListError) -> PropertyListValue {
        var reader = try Reader(bytes)
        reader.readsUIDs = true
        return try reader.object(reader.topObject)
    }

    fileprivate static let magic: [UInt8] = Array("bplist00".utf8)
    fileprivate static let trailerSize = 32
}

// MARK: - Encoding

extension BinaryPropertyList {
    private struct Writer {
        enum Object {
            /// A scalar's complete encoding, marker included.
            case leaf([UInt8])
            case array([Int])
            case dictionary(keys: [Int], values: [Int])
        }

        var objects: [Object] = []
        /// Index of each scalar already written, by its encoding.
        var leaves: [[UInt8]: Int] = [:]
        /// `{"CF$UID": n}` is written as a UID (archives).
        var writesUIDs = false

        /// Numbers `value` and its descendants in pre-order and returns its index.
        mutating func flatten(_ value: PropertyListValue) -> Int {
            if writesUIDs, case .dictionary(let entries) = value, entries.count == 1,
                case .integer(let uid)? = entries["CF$UID"], uid >= 0
            {
                var bytes = withUnsafeBytes(of: UInt64(uid).bigEndian) { Array($0) }
                while bytes.count > 1 && bytes[0] == 0 { bytes.removeFirst() }
                return leaf([0x80 | UInt8(bytes.count - 1)] + bytes)
            }
            switch value {
            case .array(let elements):
                let index = objects.count
                objects.append(.array([]))
                var references: [Int] = []
                references.reserveCapacity(elements.count)
                for element in elements {
                    references.append(flatten(element))
                }
                objects[index] = .array(references)
                return index
            case .dictionary(let entries):
                let index = objects.count
                objects.append(.dictionary(keys: [], values: []))
                let keys = entries.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
                var keyReferences: [Int] = []
                keyReferences.reserveCapacity(keys.count)
                for key in keys {
                    keyReferences.append(flatten(.string(key)))
                }
                var valueReferences: [Int] = []
                valueReferences.reserveCapacity(keys.count)
                for key in keys {
                    valueReferences.append(flatten(entries[key]!))
                }
                objects[index] = .dictionary(keys: keyReferences, values: valueReferences)
                return index
            default:
                return leaf(Self.encodeScalar(value))
            }
        }

        /// A scalar's encoding, stored once.
        mutating func leaf(_ encoded: [UInt8]) -> Int {
            if let index = leaves[encoded] { return index }
            let index = objects.count
            objects.append(.leaf(encoded))
            leaves[encoded] = index
            return index
        }

        func serialize() -> [UInt8] {
            let referenceSize = Self.byteCount(for: objects.count)
            var out = BinaryPropertyList.magic
            var offsets: [Int] = []
            offsets.reserveCapacity(objects.count)
            for object in objects {
                offsets.append(out.count)
                switch object {
                case .leaf(let encoded):
                    out.append(contentsOf: encoded)
                case .array(let references):
                    Self.appendMarker(0xA0, count: references.count, to: &out)
                    for reference in references {
                        Self.appendBigEndian(UInt64(reference), size: referenceSize, to: &out)
                    }
                case .dictionary(let keys, let values):
                    Self.appendMarker(0xD0, count: keys.count, to: &out)
                    for reference in keys + values {
                        Self.appendBigEndian(UInt64(reference), size: referenceSize, to: &out)
                    }
                }
            }
            let offsetTableOffset = out.count
            let offsetSize = Self.byteCount(for: offsetTableOffset)
            for offset in offsets {
                Self.appendBigEndian(UInt64(offset), size: offsetSize, to: &out)
            }
            out.append(contentsOf: [0, 0, 0, 0, 0, 0])  // unused, sort version
            out.append(UInt8(offsetSize))
            out.append(UInt8(referenceSize))
            Self.appendBigEndian(UInt64(objects.count), size: 8, to: &out)
            Self.appendBigEndian(0, size: 8, to: &out)  // the top object is always first
            Self.appendBigEndian(UInt64(offsetTableOffset), size: 8, to: &out)
            return out
        }

        static func encodeScalar(_ value: PropertyListValue) -> [UInt8] {
            var out: [UInt8] = []
            switch value {
            case .boolean(let flag):
                out.append(flag ? 0x09 : 0x08)
            case .integer(let number):
                appendInteger(number, to: &out)
            case .real(let number):
                out.append(0x23)
                appendBigEndian(number.bitPattern, size: 8, to: &out)
            case .date(let seconds):
                out.append(0x33)
                appendBigEndian(seconds.bitPattern, size: 8, to: &out)
            case .data(let bytes):
                appendMarker(0x40, count: bytes.count, to: &out)
                out.append(contentsOf: bytes)
            case .string(let string):
                if string.utf8.allSatisfy({ $0 < 0x80 }) {
                    appendMarker(0x50, count: string.utf8.count, to: &out)
                    out.append(contentsOf: string.utf8)
                } else {
                    appendMarker(0x60, count: string.utf16.count, to: &out)
                    for unit in string.utf16 {
                        out.append(UInt8(unit >> 8))
                        out.append(UInt8(unit & 0xFF))
                    }
                }
            case .array, .dictionary:
                preconditionFailure("containers are not scalars")
            }
            return out
        }

        /// A marker with its count in the low nibble, or `0x_F` and an integer object.
        static func appendMarker(_ marker: UInt8, count: Int, to out: inout [UInt8]) {
            if count < 15 {
                out.append(marker | UInt8(count))
            } else {
                out.append(marker | 0x0F)
                appendInteger(Int64(count), to: &out)
            }
        }

        /// CoreFoundation reads 1, 2 and 4-byte integers as unsigned and 8-byte ones as
        /// signed, so negative numbers need all 8 bytes.
        static func appendInteger(_ number: Int64, to out: inout [UInt8]) {
            let size = number < 0 ? 8 : byteCount(for: Int(number))
            let exponent: UInt8 =
                switch size {
                case 1: 0
                case 2: 1
                case 4: 2
                default: 3
                }
            out.append(0x10 | exponent)
            appendBigEndian(UInt64(bitPattern: number), size: size, to: &out)
        }

        /// The fewest of 1, 2, 4 or 8 bytes that hold `value` (`value` ≥ 0).
        static func byteCount(for value: Int) -> Int {
            switch value {
            case ..<(1 << 8): 1
            case ..<(1 << 16): 2
            case ..<(1 << 32): 4
            default: 8
            }
        }

        static func appendBigEndian(_ value: UInt64, size: Int, to out: inout [UInt8]) {
            for shift in stride(from: (size - 1) * 8, through: 0, by: -8) {
                out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
            }
        }
    }
}

// MARK: - Decoding

extension BinaryPropertyList {
    private struct Reader {
        let bytes: [UInt8]
        let offsetSize: Int
        let referenceSize: Int
        let objectCount: Int
        let topObject: Int
        /// Objects live in `8..<objectsEnd`; the offset table starts at `objectsEnd`.
        let objectsEnd: Int

        /// Every object decoded so far, so shared objects are decoded once.
        var decoded: [Int: PropertyListValue] = [:]
        /// The containers being decoded, from the top object down.
        var open: Set<Int> = []
        /// UIDs are read as `{"CF$UID": n}` (archives) instead of refused.
        var readsUIDs = false

        init(_ bytes: [UInt8]) throws(PropertyListError) {
            guard bytes.count >= 8, bytes[0..<8].elementsEqual(BinaryPropertyList.magic) else {
                throw PropertyListError(.notABinaryPlist, "header: input does not start with \"bplist00\"")
            }
            let headerAndTrailer = 8 + BinaryPropertyList.trailerSize
            guard bytes.count >= headerAndTrailer else {
                throw PropertyListError(
                    .truncated,
                    "trailer: \(bytes.count) bytes are too few for the 8-byte header and the 32-byte trailer")
            }
            let trailer = bytes.count - BinaryPropertyList.trailerSize
            let offsetSize = Int(bytes[trailer + 6])
            let referenceSize = Int(bytes[trailer + 7])
            let objectCount = Self.readBigEndian(bytes, at: trailer + 8, size: 8)
            let topObject = Self.readBigEndian(bytes, at: trailer + 16, size: 8)
            let tableOffset = Self.readBigEndian(bytes, at: trailer + 24, size: 8)

            guard (1...8).contains(offsetSize) else {
                throw PropertyListError(.invalidTrailer, "trailer: offset size \(offsetSize) is not between 1 and 8")
            }
            guard (1...8).contains(referenceSize) else {
                throw PropertyListError(
                    .invalidTrailer, "trailer: object reference size \(referenceSize) is not between 1 and 8")
            }
            guard objectCount > 0 else {
                throw PropertyListError(.invalidTrailer, "trailer: the object count is 0")
            }
            guard topObject < objectCount else {
                throw PropertyListError(
                    .invalidTrailer, "trailer: top object \(topObject) is out of range (object count \(objectCount))")
            }
            // At least one object byte precedes the table, and the table ends by the trailer.
            let tableLimit = UInt64(trailer)
            guard tableOffset > 8, tableOffset <= tableLimit,
                objectCount <= (tableLimit - tableOffset) / UInt64(offsetSize)
            else {
                throw PropertyListError(
                    .invalidTrailer,
                    "trailer: offset table at \(tableOffset) does not fit between the header and the trailer "
                        + "(object count \(objectCount), offset size \(offsetSize))")
            }
            // Every value is now bounded by `bytes.count`, so the conversions cannot trap.
            self.bytes = bytes
            self.offsetSize = offsetSize
            self.referenceSize = referenceSize
            self.objectCount = Int(objectCount)
            self.topObject = Int(topObject)
            self.objectsEnd = Int(tableOffset)
        }

        mutating func object(_ index: Int) throws(PropertyListError) -> PropertyListValue {
            if let cached = decoded[index] { return cached }
            let value = try parse(index, at: offset(of: index))
            decoded[index] = value
            return value
        }

        func offset(of index: Int) throws(PropertyListError) -> Int {
            let offset = Self.readBigEndian(bytes, at: objectsEnd + index * offsetSize, size: offsetSize)
            guard offset >= 8, offset < UInt64(objectsEnd) else {
                throw PropertyListError(
                    .invalidOffset, "object \(index): offset \(offset) is outside the object data (8..<\(objectsEnd))")
            }
            return Int(offset)
        }

        private mutating func parse(_ index: Int, at offset: Int) throws(PropertyListError) -> PropertyListValue {
            let object = ObjectContext(index: index, offset: offset)
            let marker = bytes[offset]
            let low = Int(marker & 0x0F)
            switch marker >> 4 {
            case 0x0:
                switch low {
                case 0x8: return .boolean(false)
                case 0x9: return .boolean(true)
                case 0x0: throw object.error(.unsupportedObject, "null is not supported")
                case 0xF: throw object.error(.unsupportedObject, "fill byte 0x0F is not an object")
                default: throw object.unknownMarker(marker)
                }
            case 0x1:
                guard low <= 4 else { throw object.unknownMarker(marker) }
                return .integer(try integer(size: 1 << low, at: offset + 1, of: object))
            case 0x2:
                switch low {
                case 2:
                    let bits = try fixed(4, at: offset + 1, what: "4-byte real", of: object)
                    return .real(Double(Float(bitPattern: UInt32(bits))))
                case 3:
                    return .real(Double(bitPattern: try fixed(8, at: offset + 1, what: "8-byte real", of: object)))
                default:
                    throw object.unknownMarker(marker)
                }
            case 0x3:
                guard low == 3 else { throw object.unknownMarker(marker) }
                return .date(Double(bitPattern: try fixed(8, at: offset + 1, what: "8-byte date", of: object)))
            case 0x4:
                let (start, count) = try payload(low, at: offset, unit: 1, noun: "data", units: "bytes", of: object)
                return .data(Array(bytes[start..<start + count]))
            case 0x5:
                let (start, count) = try payload(
                    low, at: offset, unit: 1, noun: "ASCII string", units: "bytes", of: object)
                let characters = bytes[start..<start + count]
                if let bad = characters.first(where: { $0 >= 0x80 }) {
                    throw object.error(.invalidObject, "ASCII string contains byte \(hex(bad))")
                }
                return .string(String(decoding: characters, as: UTF8.self))
            case 0x6:
                let (start, count) = try payload(
                    low, at: offset, unit: 2, noun: "UTF-16 string", units: "code units", of: object)
                return .string(try utf16String(from: start, count: count, of: object))
            case 0x8:
                guard readsUIDs else {
                    throw object.error(
                        .unsupportedObject, "UID is not supported (only NSKeyedArchiver archives use UIDs)")
                }
                guard low < 8 else {
                    throw object.error(.unsupportedObject, "UID of \(low + 1) bytes does not fit in 64 bits")
                }
                let uid = try fixed(low + 1, at: offset + 1, what: "\(low + 1)-byte UID", of: object)
                guard uid <= UInt64(Int64.max) else {
                    throw object.error(.unsupportedObject, "UID does not fit in 64 bits")
                }
                return .dictionary(["CF$UID": .integer(Int64(uid))])
            case 0xA, 0xC:
                return try parseArray(marker, at: offset, of: object)
            case 0xD:
                return try parseDictionary(marker, at: offset, of: object)
            default:
                throw object.unknownMarker(marker)
            }
        }

        /// An array or a set (read as an array): its elements, each parsed once.
        private mutating func parseArray(_ marker: UInt8, at offset: Int, of object: ObjectContext)
            throws(PropertyListError) -> PropertyListValue
        {
            let noun = marker >> 4 == 0xA ? "array" : "set"
            let (start, count) = try payload(
                Int(marker & 0x0F), at: offset, unit: referenceSize, noun: noun, units: "references", of: object)
            try enter(object)
            defer { open.remove(object.index) }
            var elements: [PropertyListValue] = []
            elements.reserveCapacity(count)
            for position in 0..<count {
                let reference = try self.reference(at: start + position * referenceSize, of: object)
                elements.append(try self.object(reference))
            }
            return .array(elements)
        }

        /// A dictionary: string keys (checked by marker before decoding, so a
        /// container key is never walked), then the values.
        private mutating func parseDictionary(_ marker: UInt8, at offset: Int, of object: ObjectContext)
            throws(PropertyListError) -> PropertyListValue
        {
            let (start, count) = try payload(
                Int(marker & 0x0F), at: offset, unit: 2 * referenceSize, noun: "dictionary", units: "entries",
                of: object)
            try enter(object)
            defer { open.remove(object.index) }
            var entries: [String: PropertyListValue] = [:]
            entries.reserveCapacity(count)
            let valuesStart = start + count * referenceSize
            for position in 0..<count {
                let keyReference = try reference(at: start + position * referenceSize, of: object)
                let keyMarker = bytes[try self.offset(of: keyReference)] >> 4
                guard keyMarker == 0x5 || keyMarker == 0x6,
                    case .string(let key) = try self.object(keyReference)
                else {
                    throw object.error(.nonStringKey, "key object \(keyReference) is not a string")
                }
                let valueReference = try reference(at: valuesStart + position * referenceSize, of: object)
                entries[key] = try self.object(valueReference)
            }
            return .dictionary(entries)
        }

        /// Marks a container as open, refusing nesting beyond `maximumDepth`.
        private mutating func enter(_ object: ObjectContext) throws(PropertyListError) {
            guard open.count < BinaryPropertyList.maximumDepth else {
                throw object.error(.tooDeep, "nesting is deeper than \(BinaryPropertyList.maximumDepth) levels")
            }
            open.insert(object.index)
        }

        /// Reads an object reference and checks it names an object not being decoded.
        private func reference(at position: Int, of object: ObjectContext) throws(PropertyListError) -> Int {
            let reference = Self.readBigEndian(bytes, at: position, size: referenceSize)
            guard reference < UInt64(objectCount) else {
                throw object.error(
                    .invalidOffset, "reference to object \(reference) is out of range (object count \(objectCount))")
            }
            guard !open.contains(Int(reference)) else {
                throw object.error(.cycle, "reference to object \(reference) forms a cycle")
            }
            return Int(reference)
        }

        /// Reads a fixed-size big-endian payload after a marker.
        private func fixed(
            _ size: Int, at start: Int, what: String, of object: ObjectContext
        ) throws(PropertyListError) -> UInt64 {
            guard size <= objectsEnd - start else {
                throw object.error(.truncated, "\(what) runs past the end of the object data")
            }
            return Self.readBigEndian(bytes, at: start, size: size)
        }

        private func integer(size: Int, at start: Int, of object: ObjectContext) throws(PropertyListError) -> Int64 {
            let what = "\(size)-byte integer"
            switch size {
            case 1, 2, 4:
                return Int64(try fixed(size, at: start, what: what, of: object))
            case 8:
                return Int64(bitPattern: try fixed(8, at: start, what: what, of: object))
            default:
                // 128-bit two's complement; it fits when the high half only extends the sign.
                let high = try fixed(8, at: start, what: what, of: object)
                let low = Int64(bitPattern: try fixed(8, at: start + 8, what: what, of: object))
                guard high == (low < 0 ? UInt64.max : 0) else {
                    throw object.error(.unsupportedObject, "128-bit integer does not fit in 64 bits")
                }
                return low
            }
        }

        /// Reads the count of a variable-size object and checks that `count * unit`
        /// bytes follow it, before anything is allocated.
        private func payload(
            _ low: Int, at offset: Int, unit: Int, noun: String, units: String, of object: ObjectContext
        ) throws(PropertyListError) -> (start: Int, count: Int) {
            var start = offset + 1
            var count = UInt64(low)
            if low == 0xF {
                guard start < objectsEnd else {
                    throw object.error(.truncated, "count runs past the end of the object data")
                }
                let marker = bytes[start]
                guard marker >> 4 == 0x1, marker & 0x0F <= 3 else {
                    throw object.error(.invalidObject, "count marker \(hex(marker)) is not a 1, 2, 4 or 8-byte integer")
                }
                let size = 1 << Int(marker & 0x0F)
                count = try fixed(size, at: start + 1, what: "count", of: object)
                start += 1 + size
            }
            guard count <= UInt64(objectsEnd - start) / UInt64(unit) else {
                throw object.error(.truncated, "\(noun) of \(count) \(units) runs past the end of the object data")
            }
            return (start, Int(count))
        }

        private func utf16String(from start: Int, count: Int, of object: ObjectContext) throws(PropertyListError)
            -> String
        {
            var codeUnits: [UInt16] = []
            codeUnits.reserveCapacity(count)
            for position in stride(from: start, to: start + 2 * count, by: 2) {
                codeUnits.append(UInt16(bytes[position]) << 8 | UInt16(bytes[position + 1]))
            }
            var scalars = String.UnicodeScalarView()
            var iterator = codeUnits.makeIterator()
            var decoder = UTF16()
            while true {
                switch decoder.decode(&iterator) {
                case .scalarValue(let scalar): scalars.append(scalar)
                case .emptyInput: return String(scalars)
                case .error: throw object.error(.invalidObject, "UTF-16 string has an unpaired surrogate")
                }
            }
        }

        static func readBigEndian(_ bytes: [UInt8], at start: Int, size: Int) -> UInt64 {
            var value: UInt64 = 0
            for byte in bytes[start..<start + size] {
                value = value << 8 | UInt64(byte)
            }
            return value
        }
    }

    /// The object being parsed, named in every error's subject.
    private struct ObjectContext {
        let index: Int
        let offset: Int

        func error(_ kind: PropertyListError.Kind, _ detail: String) -> PropertyListError {
            PropertyListError(kind, "object \(index) at offset \(offset): \(detail)")
        }

        func unknownMarker(_ marker: UInt8) -> PropertyListError {
            error(.unsupportedObject, "unknown marker \(hex(marker))")
        }
    }
}

/// `0x0F`-style rendering of a byte for messages.
private func hex(_ byte: UInt8) -> String {
    let digits = String(byte, radix: 16, uppercase: true)
    return "0x" + (digits.count == 1 ? "0" + digits : digits)
}
