import Foundation

extension TestImages {
    /// The repository's Samples/ folder (the photo `make run` serves as `local:///sample.jpg`).
    package static let samplesDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Samples")

    /// Samples/sample.jpg: a real photo, 640 × 427.
    package static let samplePhoto: Data = try! Data(contentsOf: samplesDirectory.appendingPathComponent("sample.jpg"))
}
