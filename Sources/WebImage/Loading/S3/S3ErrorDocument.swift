import Foundation

/// The fields of S3's XML error body (`<Error><Code>NoSuchKey</Code><Message>…</Message>…`)
/// that say what went wrong.
struct S3ErrorDocument: Sendable, Equatable {
    /// S3's error code, e.g. `NoSuchKey`, `AccessDenied`, `SignatureDoesNotMatch`.
    var code: String?
    /// S3's explanation.
    var message: String?
    /// The region the bucket is in, when S3 says (a wrong-region error).
    var region: String?

    /// Reads the fields from `body`; those absent (or a body that is not S3's XML) stay `nil`.
    init(_ body: some Sequence<UInt8>) {
        let text = String(decoding: Array(body.prefix(64 * 1024)), as: UTF8.self)
        code = AWSXMLText.element("Code", in: text)
        message = AWSXMLText.element("Message", in: text)
        region = AWSXMLText.element("Region", in: text)
    }

    /// `Code: Message`, or what of it there is; `nil` when there is neither.
    var summary: String? {
        switch (code, message) {
        case let (code?, message?): "\(code): \(message)"
        case let (code?, nil): code
        case let (nil, message?): message
        case (nil, nil): nil
        }
    }
}
