/// What a binary property list expands to, checked before it is decoded. Its objects refer to each other by
/// index, and one object may be referred to many times: 247 bytes of arrays nested 40 deep, each holding the
/// next twice, decode to 2⁴⁰ objects. An options file is a flat dictionary of about twenty strings.
struct BinaryPropertyListBounds {
    /// At most this many objects once every reference is followed (each counted as often as it is reached).
    static let maximumExpandedObjects = 10_000
    /// At most this many containers inside each other.
    static let maximumDepth = 16

    /// Why the list is refused: it is malformed, or it expands past the limits.
    struct Refusal: Error {
        let reason: String
    }

    private let bytes: [UInt8]
    private let offsetSize: Int, referenceSize: Int
    private let objectCount: Int, offsetTable: Int

    /// Checks `data` when it is a binary property list (`bplist00`); any other data passes unchecked (XML
    /// has no shared references, so it expands to no more than its size).
    static func check(_ data: some Collection<UInt8>) throws(Refusal) {
        let bytes = Array(data)
        guard bytes.starts(with: Array("bplist00".utf8)) else { return }
        let list = try BinaryPropertyListBounds(bytes)
        var expanded = [Int?](repeating: nil, count: list.objectCount)
        _ = try list.expandedCount(of: try Self.integer(in: bytes, at: bytes.count - 16, size: 8), depth: 0, memo: &expanded)
    }

    private init(_ bytes: [UInt8]) throws(Refusal) {
        guard bytes.count >= 8 + 32 else { throw Refusal(reason: "it is too short for a binary property list") }
        self.bytes = bytes
        let trailer = bytes.count - 32
        offsetSize = Int(bytes[trailer + 6])
        referenceSize = Int(bytes[trailer + 7])
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize) else {
            throw Refusal(reason: "its trailer is malformed")
        }
        let count = try Self.integer(in: bytes, at: trailer + 8, size: 8)
        let table = try Self.integer(in: bytes, at: trailer + 24, size: 8)
        guard count <= Self.maximumExpandedObjects else {
            throw Refusal(reason: "it holds \(count) objects (an options file has a few dozen)")
        }
        guard table >= 8, table + count * offsetSize <= trailer else { throw Refusal(reason: "its offset table is malformed") }
        objectCount = count
        offsetTable = table
    }

    /// A big-endian unsigned integer of `size` bytes at `offset`.
    private func integer(at offset: Int, size: Int) throws(Refusal) -> Int {
        try Self.integer(in: bytes, at: offset, size: size)
    }

    private static func integer(in bytes: [UInt8], at offset: Int, size: Int) throws(Refusal) -> Int {
        guard offset >= 0, size <= 8, offset + size <= bytes.count else { throw Refusal(reason: "it refers past its end") }
        var value: UInt64 = 0
        for byte in bytes[offset..<(offset + size)] { value = value << 8 | UInt64(byte) }
        guard value <= UInt64(Int.max >> 8) else { throw Refusal(reason: "it holds an offset out of range") }
        return Int(value)
    }

    /// How many objects `object` expands to, each reference followed.
    private func expandedCount(of object: Int, depth: Int, memo: inout [Int?]) throws(Refusal) -> Int {
        guard object < objectCount else { throw Refusal(reason: "it refers to an object it does not have") }
        if let known = memo[object] { return known }
        guard depth <= Self.maximumDepth else {
            throw Refusal(reason: "its containers are nested over \(Self.maximumDepth) deep (or refer to themselves)")
        }
        let offset = try integer(at: offsetTable + object * offsetSize, size: offsetSize)
        guard offset >= 8, offset < bytes.count - 32 else { throw Refusal(reason: "an object lies outside the list") }
        let marker = bytes[offset]
        var total = 1
        for child in try children(marker: marker, at: offset) {
            total += try expandedCount(of: child, depth: depth + 1, memo: &memo)
            guard total <= Self.maximumExpandedObjects else {
                throw Refusal(reason: "it expands to over \(Self.maximumExpandedObjects) objects through shared references")
            }
        }
        memo[object] = total
        return total
    }

    /// The objects an array, set or dictionary refers to (a dictionary's keys, then its values); none for others.
    private func children(marker: UInt8, at offset: Int) throws(Refusal) -> [Int] {
        let kind = marker >> 4
        guard kind == 0xA || kind == 0xC || kind == 0xD else { return [] }
        var count = Int(marker & 0x0F), start = offset + 1
        if count == 0x0F {
            guard start < bytes.count, bytes[start] >> 4 == 0x1 else { throw Refusal(reason: "a container's size is malformed") }
            let size = 1 << Int(bytes[start] & 0x0F)
            count = try integer(at: start + 1, size: size)
            start += 1 + size
        }
        let references = kind == 0xD ? count * 2 : count
        guard references <= Self.maximumExpandedObjects else {
            throw Refusal(reason: "a container holds \(count) entries")
        }
        return try (0..<references).map { (index) throws(Refusal) in try integer(at: start + index * referenceSize, size: referenceSize) }
    }
}
