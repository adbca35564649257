// swift-tools-version: 6.1
// Benchmarks for Weft against Swinject and hand-written wiring. A package of its own so that the
// Weft library keeps no dependencies; run it with ./run.sh (see README.md).
import PackageDescription

let package = Package(
    name: "WeftBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "Weft", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/Swinject/Swinject", exact: "2.10.0"),
    ],
    targets: [
        .executableTarget(
            name: "DIBenchmarks",
            dependencies: [
                .product(name: "Weft", package: "Weft"),
                .product(name: "Swinject", package: "Swinject"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/DIBenchmarks",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark")
            ]
        )
    ],
    swiftLanguageModes: [.v6]
)
