import NIOCore
import NIOPosix

/// Requests sent to the proxy on connections of their own and then abandoned: the client
/// never reads the answer and hangs up when the test says, as a burst of clients that
/// give up does.
struct HeldRequests: Sendable {
    private let channels: [any Channel]

    /// Sends `GET path` for each of `paths`, each on its own connection to `port`.
    static func send(_ paths: [String], port: Int) async throws -> HeldRequests {
        var channels: [any Channel] = []
        for path in paths {
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connect(host: "127.0.0.1", port: port).get()
            try await channel.writeAndFlush(ByteBuffer(string: "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")).get()
            channels.append(channel)
        }
        return HeldRequests(channels: channels)
    }

    /// Hangs up every connection.
    func abandon() async {
        for channel in channels { try? await channel.close().get() }
    }
}
