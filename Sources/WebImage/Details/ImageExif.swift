import CVips
import Foundation

/// The EXIF facts people ask an image proxy about: camera, lens, settings, date and,
/// only when asked for, where it was taken.
public struct ImageExif: Sendable, Hashable, Codable {
    /// The camera's maker (IFD0 `Make`).
    public var make: String?
    /// The camera's model (IFD0 `Model`).
    public var model: String?
    /// The lens (`LensModel`).
    public var lens: String?
    /// The software that last wrote the file (IFD0 `Software`).
    public var software: String?
    /// When the photo was taken (`DateTimeOriginal`, else IFD0 `DateTime`), as EXIF writes
    /// it: `2024:05:01 12:34:56`.
    public var dateTime: String?
    /// The exposure time as written, e.g. `1/125`.
    public var exposureTime: String?
    /// The aperture's f-number, e.g. 2.8.
    public var fNumber: Double?
    /// The ISO speed.
    public var iso: Int?
    /// The focal length in millimetres.
    public var focalLength: Double?
    /// Where the photo was taken; `nil` unless asked for (it can locate a person's home).
    public var gps: Location?

    /// A position from the EXIF GPS tags.
    public struct Location: Sendable, Hashable, Codable {
        /// Degrees north (negative: south).
        public var latitude: Double
        /// Degrees east (negative: west).
        public var longitude: Double
        /// Metres above sea level, when recorded.
        public var altitude: Double?

        /// Creates a position.
        public init(latitude: Double, longitude: Double, altitude: Double? = nil) {
            self.latitude = latitude
            self.longitude = longitude
            self.altitude = altitude
        }
    }

    /// Creates EXIF facts.
    public init(
        make: String? = nil, model: String? = nil, lens: String? = nil, software: String? = nil, dateTime: String? = nil,
        exposureTime: String? = nil, fNumber: Double? = nil, iso: Int? = nil, focalLength: Double? = nil, gps: Location? = nil
    ) {
        self.make = make
        self.model = model
        self.lens = lens
        self.software = software
        self.dateTime = dateTime
        self.exposureTime = exposureTime
        self.fNumber = fNumber
        self.iso = iso
        self.focalLength = focalLength
        self.gps = gps
    }

    /// Whether no fact was found.
    public var isEmpty: Bool { self == ImageExif() }

    /// Reads the facts from a libvips header; GPS only with `includeGPS`.
    static func read(from header: VipsImageHandle, includeGPS: Bool) -> ImageExif? {
        func raw(_ name: String) -> String? {
            guard let text = wi_get_string(header.pointer, "exif-" + name) else { return nil }
            defer { wi_g_free(text) }
            // libvips writes "<value> (<readable>, <type>, <n> components, <n> bytes)".
            let whole = String(cString: text)
            let value = whole.range(of: " (", options: .backwards).map { String(whole[..<$0.lowerBound]) } ?? whole
            let trimmed = value.trimmingCharacters(in: .whitespaces)
            return trimmed.isEmpty ? nil : trimmed
        }
        func rationals(_ name: String) -> [Double] {
            (raw(name) ?? "").split(separator: " ").compactMap { part in
                let pieces = part.split(separator: "/")
                guard let numerator = Double(pieces.first ?? "") else { return nil }
                guard pieces.count == 2 else { return numerator }
                guard let denominator = Double(pieces[1]), denominator != 0 else { return nil }
                return numerator / denominator
            }
        }
        var exif = ImageExif(
            make: raw("ifd0-Make"), model: raw("ifd0-Model"), lens: raw("ifd2-LensModel"), software: raw("ifd0-Software"),
            dateTime: raw("ifd2-DateTimeOriginal") ?? raw("ifd0-DateTime"), exposureTime: raw("ifd2-ExposureTime"),
            fNumber: rationals("ifd2-FNumber").first,
            iso: (raw("ifd2-ISOSpeedRatings") ?? raw("ifd2-PhotographicSensitivity")).flatMap { Int($0.split(separator: " ").first ?? "") },
            focalLength: rationals("ifd2-FocalLength").first
        )
        if includeGPS {
            let latitude = rationals("ifd3-GPSLatitude"), longitude = rationals("ifd3-GPSLongitude")
            if latitude.count == 3, longitude.count == 3 {
                let degrees = { (parts: [Double]) in parts[0] + parts[1] / 60 + parts[2] / 3600 }
                let north = (raw("ifd3-GPSLatitudeRef") ?? "N").uppercased().hasPrefix("S") ? -1.0 : 1.0
                let east = (raw("ifd3-GPSLongitudeRef") ?? "E").uppercased().hasPrefix("W") ? -1.0 : 1.0
                let below = raw("ifd3-GPSAltitudeRef").map { $0.hasPrefix("1") } ?? false
                exif.gps = Location(
                    latitude: north * degrees(latitude), longitude: east * degrees(longitude),
                    altitude: rationals("ifd3-GPSAltitude").first.map { below ? -$0 : $0 }
                )
            }
        }
        return exif.isEmpty ? nil : exif
    }
}
