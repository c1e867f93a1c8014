// swift-tools-version:6.1
// WebImage's benchmarks: a package of their own, so `swift test` at the root never
// builds them. Run with `make bench` at the root, or from here:
//   swift package --allow-writing-to-package-directory benchmark
import PackageDescription

/// An executable of Sources/<name>.
func profile(_ name: String, _ dependencies: [Target.Dependency] = []) -> Target {
    .executableTarget(name: name, dependencies: ["BenchmarkSupport"] + dependencies)
}

/// A package-benchmark target of Benchmarks/<name>, run by the benchmark plugin.
func benchmark(_ name: String, _ dependencies: [Target.Dependency] = []) -> Target {
    .executableTarget(
        name: name,
        dependencies: [.product(name: "Benchmark", package: "benchmark"), "BenchmarkSupport"] + dependencies,
        path: "Benchmarks/" + name,
        plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    )
}

let package = Package(
    name: "WebImageBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(name: "WebImage", path: ".."),
        // The loading pairs' local HTTP server (NIO) and direct-client baseline (AHC).
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
        // Executables outside the harness (not under Benchmarks/, so the plugin does not run
        // them): interleaved A/B runs that write figures, and loops for perf and callgrind.
        profile("CodingProfile"),
        profile("LoadingProfile"),
        profile("QualityProfile"),
        profile("VariantProfile"),
        profile("AnimationProfile"),
        benchmark("CodingBenchmarks"),
        benchmark("CacheBenchmarks"),
        benchmark("LoadingBenchmarks"),
        benchmark("TransformBenchmarks"),
        benchmark("PrefetchBenchmarks"),
    ],
    swiftLanguageModes: [.v6]
)
