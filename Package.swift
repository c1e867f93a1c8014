// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "WebImage",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "WebImage", targets: ["WebImage"]),
        .library(name: "WebImageServer", targets: ["WebImageServer"]),
        .executable(name: "webimage", targets: ["webimage"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.3.0"),
        // OpenTelemetry with its OTLP/HTTP exporter only: the OTLPGRPC trait (on by default)
        // would build gRPC and HTTP/2 as well.
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"]),
        // `make docs`: the DocC catalogs of WebImage and WebImageServer. A command plugin, so
        // builds and tests only resolve it.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CVips",
            pkgConfig: "vips",
            providers: [.apt(["libvips-dev"])]
        ),
        .target(name: "CWebImageSupport"),
        // liborc's compiles and frees of vector code, one at a time (orc_code_lock.c).
        .target(name: "COrcCodeLock"),
        // libvips' error messages kept per thread (vips_thread_errors.c).
        .target(name: "CVipsThreadErrors"),
        // Little CMS transforms to sRGB, kept per profile (color_transforms.c); lcms2 comes
        // with libvips-dev.
        .target(name: "CColorTransforms", linkerSettings: [.linkedLibrary("lcms2")]),
        // The thread sanitizer's annotations and default suppressions.
        .target(name: "CThreadSanitizer"),
        // Locks whose ordering the thread sanitizer sees, for every module of the package.
        .target(name: "WebImageLocking", dependencies: ["CThreadSanitizer"]),
        .target(
            name: "WebImage",
            dependencies: [
                "CVips",
                "COrcCodeLock",
                "CVipsThreadErrors",
                "CColorTransforms",
                "CWebImageSupport",
                "WebImageLocking",
                .product(name: "Crypto", package: "swift-crypto"),
                // RS256 (RSA PKCS#1 v1.5) signing of GCS service-account tokens.
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "Collections", package: "swift-collections"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
        // The image proxy (`webimage serve`): imgproxy's URL dialect on the WebImage pipeline.
        .target(
            name: "WebImageServer",
            dependencies: [
                "WebImage",
                "WebImageLocking",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "OTel", package: "swift-otel"),
            ],
            // The playground's page, script and style, compiled into the binary (no bundle to install beside it).
            resources: [
                .embedInCode("Resources/Playground/playground.html"),
                .embedInCode("Resources/Playground/playground.js"),
                .embedInCode("Resources/Playground/playground.css"),
            ]
        ),
        // The allocator's settings, applied before `main` (and before any thread) of `webimage`.
        .target(name: "CAllocatorDefaults"),
        // The command-line tool: fetch, prefetch, info, cache, refresh, serve.
        .executableTarget(
            name: "webimage",
            dependencies: [
                "CAllocatorDefaults",
                "WebImage",
                "WebImageLocking",
                "WebImageServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // A child process the crash-safety test (SPEC C8) starts and kills with SIGKILL.
        .target(name: "VersionedPayload", path: "Tests/VersionedPayload"),
        .executableTarget(
            name: "DiskCacheCrashWriter",
            dependencies: ["WebImage", "VersionedPayload"],
            path: "Tests/DiskCacheCrashWriter"
        ),
        // What every test target shares: the in-process origin on 127.0.0.1, test images,
        // throw-away caches, a self-signed certificate.
        // Child processes for the tests, started with posix_spawn (child_process.c).
        .target(name: "CChildProcess", path: "Tests/CChildProcess"),
        .target(
            name: "WebImageTestSupport",
            dependencies: [
                "WebImage",
                "WebImageLocking",
                "CVips",
                "CChildProcess",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            path: "Tests/WebImageTestSupport"
        ),
        .testTarget(
            name: "WebImageTests",
            dependencies: [
                "WebImage",
                "WebImageLocking",
                "WebImageTestSupport",
                "CVips",
                "COrcCodeLock",
                "CVipsThreadErrors",
                "DiskCacheCrashWriter",
                "VersionedPayload",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            // Binary inputs the tests read through #filePath (Fixtures/README.md).
            exclude: ["Fixtures", "Placeholders/make-thumbhash-vectors.mjs"]
        ),
        .testTarget(
            name: "WebImageServerTests",
            dependencies: [
                "WebImageServer",
                "WebImage",
                "WebImageLocking",
                "WebImageTestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            // Text inputs the tests read through #filePath.
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "WebImageLockingTests",
            dependencies: ["WebImageLocking", "CThreadSanitizer"]
        ),
        // Runs the built `webimage` executable as a subprocess.
        .testTarget(
            name: "WebImageCLITests",
            dependencies: ["webimage", "WebImage", "WebImageLocking", "WebImageTestSupport"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
