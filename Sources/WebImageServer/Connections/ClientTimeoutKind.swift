/// Which wait of a client connection ran out.
enum ClientTimeoutKind: String, Sendable, CaseIterable {
    /// The client took longer than the read timeout to send a request, head and body.
    case readRequest = "read_request"
    /// A kept-alive connection waited longer than the keep-alive timeout for its next request.
    case keepAlive = "keep_alive"
    /// A response took longer than the write timeout to be written: the client does not
    /// read it, or reads it too slowly.
    case writeResponse = "write_response"
}
