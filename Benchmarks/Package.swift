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
            ]
        ),
        // Runs one case in a loop, without the benchmark harness, for callgrind / perf.
        // Not under Benchmarks/, so the benchmark plugin does not run it.
        .executableTarget(
            name: "CodingProfile",
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
    ],
    swiftLanguageModes: [.v6]
)
