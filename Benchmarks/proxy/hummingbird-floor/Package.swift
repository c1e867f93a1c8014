// swift-tools-version:6.1
// The cached path's floor: Hummingbird alone answering every GET with the same bytes and
// the headers the proxy sends with a cached variant (cached.sh runs it beside the proxy).
import PackageDescription

let package = Package(
    name: "HummingbirdFloor",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
    ],
    targets: [
        .executableTarget(
            name: "HummingbirdFloor",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
    ]
)
