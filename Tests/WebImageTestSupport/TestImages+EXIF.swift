import Foundation
import WebImage

extension TestImages {
    /// A little-endian TIFF block with the IFD0 tags Make and Copyright, as EXIF carries it.
    package static func exif(make: String, copyright: String) -> [UInt8] {
        func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
        func le32(_ value: Int) -> [UInt8] { le16(value & 0xFFFF) + le16(value >> 16) }
        let strings = [(0x010F, Array(make.utf8) + [0]), (0x8298, Array(copyright.utf8) + [0])]
        let ifdSize = 2 + 12 * strings.count + 4
        var dataOffset = 8 + ifdSize
        var ifd = le16(strings.count), data: [UInt8] = []
        for (tag, bytes) in strings {
            ifd += le16(tag) + le16(2) + le32(bytes.count) + le32(dataOffset)
            data += bytes
            dataOffset += bytes.count
        }
        return Array("II".utf8) + le16(42) + le32(8) + ifd + le32(0) + data
    }

    /// A 32 × 32 quadrants JPEG whose APP1 segment holds EXIF with the tags Make and Copyright.
    package static func jpeg(make: String, copyright: String) throws -> Data {
        let plain = [UInt8](try encode(try quadrants(width: 32, height: 32), as: .jpeg))
        let payload = Array("Exif".utf8) + [0, 0] + exif(make: make, copyright: copyright)
        let length = payload.count + 2
        let segment: [UInt8] = [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
        return Data(plain.prefix(2) + segment + plain.dropFirst(2))
    }
}
