// swift-tools-version:6.1
// WebImage's benchmarks: a package of their own, so `swift test` at the root never
// builds them. Run with `make bench` at the root, or from here:
//   swift package --allow-writing-to-package-directory benchmark
import PackageDescription

let package = Package(
    name: "WebImageBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(name: "WebImage", path: ".."),
        // The loading benchmarks' local HTTP server (NIO) and direct-client baseline (AHC).
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
    ],
    targets: [
        // Direct libvips calls, the baseline WebImage is measured against.
        .systemLibrary(
            name: "CVipsBaseline",
            pkgConfig: "vips",
            providers: [.apt(["libvips-dev"])]
        ),
        // Test images, the direct-libvips baseline and the cases both sides run.
        .target(
            name: "BenchmarkSupport",
            dependencies: [
                .product(name: "WebImage", package: "WebImage"),
                "CVipsBaseline",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
        // Runs one case in a loop, without the benchmark harness, for callgrind / perf.
        // Not under Benchmarks/, so the benchmark plugin does not run it.
        .executableTarget(
            name: "CodingProfile",
            dependencies: ["BenchmarkSupport"]
        ),
        // The download pair in a loop (interleaved A/B or one side), for perf / callgrind.
        .executableTarget(
            name: "LoadingProfile",
            dependencies: ["BenchmarkSupport", .product(name: "AsyncHTTPClient", package: "async-http-client")]
        ),
        // Auto quality and best format over a corpus of real images (bytes, SSIM, encodes, cost).
        .executableTarget(
            name: "QualityProfile",
            dependencies: ["BenchmarkSupport", .product(name: "WebImage", package: "WebImage")]
        ),
        // Cold encoded variants through the manager against libvips direct (the proxy's case 2 without HTTP).
        .executableTarget(
            name: "VariantProfile",
            dependencies: ["BenchmarkSupport"]
        ),
        // A long animated GIF played lazily (AnimatedImage) against decoded whole first.
        .executableTarget(
            name: "AnimationProfile",
            dependencies: ["BenchmarkSupport"]
        ),
        .executableTarget(
            name: "CodingBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                "BenchmarkSupport",
            ],
            path: "Benchmarks/CodingBenchmarks",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark"),
            ]
        ),
        .executableTarget(
            name: "CacheBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                "BenchmarkSupport",
            ],
            path: "Benchmarks/CacheBenchmarks",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark"),
            ]
        ),
        .executableTarget(
            name: "LoadingBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                "BenchmarkSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Benchmarks/LoadingBenchmarks",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark"),
            ]
        ),
        .executableTarget(
            name: "TransformBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                "BenchmarkSupport",
            ],
            path: "Benchmarks/TransformBenchmarks",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark"),
            ]
        ),
        .executableTarget(
            name: "PrefetchBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                "BenchmarkSupport",
            ],
            path: "Benchmarks/PrefetchBenchmarks",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
