/// The hash of a registration name in Weft's own tables: a few instructions a word for the usual ASCII
/// name, where Swift's `String` hash (SipHash over the normalized text) costs about 260 a name.
///
/// Names that Swift's `==` says are equal get the same hash, as for any hash of a `String`: `==` compares
/// the canonical (NFC) forms, and equal names may differ in their bytes ("e\u{301}" is "é"). A name whose
/// bytes are ASCII is its own canonical form, so its bytes are hashed directly. A name with other characters
/// is equal to an ASCII one only when each of its scalars is ASCII or one of the three whose canonical
/// decomposition is a single ASCII character: U+037E GREEK QUESTION MARK (";"), U+1FEF GREEK VARIA ("`")
/// and U+212A KELVIN SIGN ("K"). Such a name is hashed as that ASCII text. Every other name goes through
/// Swift's own hash; its canonical form has a character outside ASCII, so no ASCII name equals it.
@usableFromInline enum NameHash {
    /// The hash of `name`. Not inlinable: code inlined into another module calls it.
    @usableFromInline @inline(__always)
    static func of(_ name: String) -> UInt64 {
        let fast = name.utf8.withContiguousStorageIfAvailable { bytes in
            asciiHash(UnsafeRawBufferPointer(bytes))
        }
        if let fast, let hash = fast { return hash }
        return hashOfOtherName(name)
    }

    /// The hash of `bytes`, or nil when a byte is not ASCII.
    @inline(__always)
    private static func asciiHash(_ bytes: UnsafeRawBufferPointer) -> UInt64? {
        let count = bytes.count
        var hash = UInt64(truncatingIfNeeded: count) &* 0x9E37_79B9_7F4A_7C15
        var seen: UInt64 = 0
        if count >= 8 {
            // Whole words, then the last eight bytes (overlapping the last whole word when the count is not a
            // multiple of eight; the count is in the hash already).
            var offset = 0
            while offset + 8 < count {
                let word = word(bytes, at: offset)
                seen |= word
                hash = mix(hash ^ word)
                offset += 8
            }
            let word = word(bytes, at: count - 8)
            seen |= word
            hash = mix(hash ^ word)
        } else if count > 0 {
            var word: UInt64 = 0
            for index in 0..<count {
                word |= UInt64(bytes[index]) << (8 * UInt64(index))
            }
            seen = word
            hash = mix(hash ^ word)
        }
        return seen & 0x8080_8080_8080_8080 == 0 ? hash : nil
    }

    @inline(__always)
    private static func word(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt64 {
        UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    @inline(__always)
    private static func mix(_ value: UInt64) -> UInt64 {
        let product = value &* 0xBF58_476D_1CE4_E5B9
        return product ^ (product >> 31)
    }

    /// A name with a byte outside ASCII, or whose bytes are not contiguous (a bridged string).
    @inline(never)
    private static func hashOfOtherName(_ name: String) -> UInt64 {
        var ascii: [UInt8] = []
        ascii.reserveCapacity(name.utf8.count)
        for scalar in name.unicodeScalars {
            switch scalar.value {
            case 0..<0x80: ascii.append(UInt8(scalar.value))
            case 0x037E: ascii.append(UInt8(ascii: ";"))
            case 0x1FEF: ascii.append(UInt8(ascii: "`"))
            case 0x212A: ascii.append(UInt8(ascii: "K"))
            default: return UInt64(UInt(bitPattern: name.hashValue))
            }
        }
        return ascii.withUnsafeBytes { bytes in
            guard let hash = asciiHash(bytes) else { preconditionFailure("Weft: a name mapped to ASCII is not ASCII") }
            return hash
        }
    }
}
