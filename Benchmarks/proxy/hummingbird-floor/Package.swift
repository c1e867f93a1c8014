// swift-tools-version:6.1
// The floors of the proxy's two paths on Hummingbird alone (cached.sh and pipeline.sh run
// it beside the proxy): every GET answered with the same bytes and the header fields of a
// cached variant, or, in cold mode, every variant made with the proxy's libvips calls and
// file work (../proxy_sequence.h) on a thread pool, as lean_server.c makes it in C.
import PackageDescription

let package = Package(
    name: "HummingbirdFloor",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
    ],
    targets: [
        // libvips, and the proxy's calls from ../proxy_sequence.h.
        .systemLibrary(name: "CFloorVips", pkgConfig: "vips", providers: [.apt(["libvips-dev"])]),
        // WebImage's orc code lock (a link to Sources/COrcCodeLock), as the proxy is built with it.
        .target(name: "FloorOrcLock"),
        .executableTarget(
            name: "HummingbirdFloor",
            dependencies: [
                "CFloorVips",
                "FloorOrcLock",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
    ]
)
