extension Substring {
    /// The pieces between `separator` bytes, empty pieces kept. A plain loop over the
    /// UTF-8 bytes: splitting on `Character`s costs several times more, and URL paths are
    /// split on ASCII only (so every cut falls on a character boundary).
    func fields(separatedBy separator: Unicode.Scalar) -> [Substring] {
        let byte = UInt8(ascii: separator)
        let bytes = utf8
        var pieces: [Substring] = []
        var start = startIndex
        var index = startIndex
        while index < endIndex {
            let next = bytes.index(after: index)
            if bytes[index] == byte {
                pieces.append(self[start..<index])
                start = next
            }
            index = next
        }
        pieces.append(self[start..<endIndex])
        return pieces
    }

    /// Whether the ASCII `character` occurs, compared byte-wise.
    func containsByte(_ character: Unicode.Scalar) -> Bool {
        utf8.contains(UInt8(ascii: character))
    }
}
