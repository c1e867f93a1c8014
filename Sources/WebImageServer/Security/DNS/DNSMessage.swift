import NIOCore

/// The DNS wire format (RFC 1035) as far as a stub resolver needs it: a recursive query for
/// one name and type, and the answer's code, truncation flag, addresses and aliases.
enum DNSMessage {
    /// The record types asked for.
    enum RecordType: UInt16, Sendable, CaseIterable {
        /// An IPv4 address.
        case a = 1
        /// An IPv6 address.
        case aaaa = 28
    }

    /// `CNAME`: the name is an alias of another.
    static let cnameType: UInt16 = 5
    /// The Internet class.
    static let internetClass: UInt16 = 1

    /// What a response says, as far as it concerns the question.
    struct Response: Sendable, Equatable {
        /// The response code: 0 no error, 2 server failure, 3 no such name, 5 refused.
        var code: UInt8
        /// Whether the server truncated the answer to fit a datagram.
        var truncated: Bool
        /// The addresses of the name asked for (or of the name its aliases lead to).
        var addresses: [IPAddress]
        /// The name the aliases lead to, when it differs from the name asked for.
        var canonicalName: String?
        /// The shortest time to live of the records used, in seconds.
        var ttl: UInt32
    }

    /// A recursive query: a header with `id` and the recursion-desired flag, one question.
    /// `name` is checked by ``isValidName(_:)`` first.
    static func query(id: UInt16, name: String, type: RecordType) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(18 + name.utf8.count)
        buffer.writeInteger(id)
        buffer.writeInteger(UInt16(0x0100))  // a standard query, recursion desired
        buffer.writeInteger(UInt16(1))  // one question
        buffer.writeInteger(UInt16(0))
        buffer.writeInteger(UInt16(0))
        buffer.writeInteger(UInt16(0))
        for label in name.split(separator: ".") {
            buffer.writeInteger(UInt8(label.utf8.count))
            buffer.writeBytes(label.utf8)
        }
        buffer.writeInteger(UInt8(0))
        buffer.writeInteger(type.rawValue)
        buffer.writeInteger(internetClass)
        return buffer
    }

    /// Whether `name` can be asked for: ASCII labels of 1 to 63 bytes, 253 bytes in all,
    /// without a trailing dot.
    static func isValidName(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 253, name.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return false }
        return name.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { (1...63).contains($0.utf8.count) }
    }

    /// The response to the query `id` for `name` and `type`, or `nil` when `buffer` is not
    /// one: another ID, not a response, another question, or malformed.
    static func response(_ buffer: ByteBuffer, id: UInt16, name: String, type: RecordType) -> Response? {
        var reader = buffer
        guard let gotID = reader.readInteger(as: UInt16.self), gotID == id,
              let flags = reader.readInteger(as: UInt16.self), flags & 0x8000 != 0,
              let questions = reader.readInteger(as: UInt16.self), questions == 1,
              let answers = reader.readInteger(as: UInt16.self),
              reader.readInteger(as: UInt32.self) != nil  // the authority and additional counts
        else { return nil }
        guard let asked = readName(&reader, in: buffer), asked.lowercased() == name.lowercased(),
              reader.readInteger(as: UInt16.self) == type.rawValue, reader.readInteger(as: UInt16.self) == internetClass
        else { return nil }
        var response = Response(code: UInt8(flags & 0x000F), truncated: flags & 0x0200 != 0, addresses: [], canonicalName: nil, ttl: .max)
        // The names whose records answer the question: the name asked for and its aliases.
        var owners: Set<String> = [name.lowercased()]
        var current = name.lowercased()
        for _ in 0..<answers {
            guard let owner = readName(&reader, in: buffer)?.lowercased(),
                  let recordType = reader.readInteger(as: UInt16.self),
                  let recordClass = reader.readInteger(as: UInt16.self),
                  let ttl = reader.readInteger(as: UInt32.self),
                  let length = reader.readInteger(as: UInt16.self),
                  reader.readableBytes >= Int(length)
            else { return response.truncated ? response : nil }
            let dataStart = reader.readerIndex
            defer { reader.moveReaderIndex(to: dataStart + Int(length)) }
            guard recordClass == internetClass, owners.contains(owner) else { continue }
            if recordType == cnameType {
                var data = reader
                guard let target = readName(&data, in: buffer)?.lowercased() else { return nil }
                owners.insert(target)
                current = target
                response.ttl = min(response.ttl, ttl)
            } else if recordType == type.rawValue, Int(length) == (type == .a ? 4 : 16),
                      let bytes = reader.getBytes(at: dataStart, length: Int(length)), let address = IPAddress(bytes: bytes) {
                response.addresses.append(address)
                response.ttl = min(response.ttl, ttl)
            }
        }
        if current != name.lowercased() { response.canonicalName = current }
        if response.ttl == .max { response.ttl = 0 }
        return response
    }

    /// Reads a name at the reader's position, following compression pointers into `message`.
    private static func readName(_ reader: inout ByteBuffer, in message: ByteBuffer) -> String? {
        var labels: [String] = []
        var position = reader.readerIndex
        var endOfName: Int?
        var jumps = 0
        var total = 0
        while true {
            guard let length = message.getInteger(at: position, as: UInt8.self) else { return nil }
            if length & 0xC0 == 0xC0 {
                guard let low = message.getInteger(at: position + 1, as: UInt8.self), jumps < 32 else { return nil }
                if endOfName == nil { endOfName = position + 2 }
                // Offsets count from the message's first byte.
                position = message.readerIndex + (Int(length & 0x3F) << 8 | Int(low))
                jumps += 1
                continue
            }
            guard length & 0xC0 == 0 else { return nil }
            if length == 0 {
                if endOfName == nil { endOfName = position + 1 }
                break
            }
            guard let bytes = message.getBytes(at: position + 1, length: Int(length)) else { return nil }
            total += Int(length) + 1
            guard total <= 255 else { return nil }
            labels.append(String(decoding: bytes, as: UTF8.self))
            position += 1 + Int(length)
        }
        reader.moveReaderIndex(to: endOfName!)
        return labels.joined(separator: ".")
    }
}
