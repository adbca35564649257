// swift-tools-version: 6.1
// Benchmarks for Weft against Swinject and hand-written wiring. A package of its own so that the
// Weft library keeps no dependencies; run it with ./run.sh (see README.md).
import PackageDescription

// The malloc interposer counts allocations, and it sits in every malloc and free even while it does not count
// (an indirect call and a size header per allocation), which adds the same time to every allocation of the
// hand-written baseline and of the libraries alike and so flatters every library. run.sh therefore times a build
// without it and counts allocations with a second build (WEFT_BENCHMARKS_COUNT_ALLOCATIONS set, its own scratch
// path) that has it.
let countsAllocations = Context.environment["WEFT_BENCHMARKS_COUNT_ALLOCATIONS"] != nil

let package = Package(
    name: "WeftBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "Weft", path: ".."),
        .package(
            url: "https://github.com/ordo-one/benchmark", from: "1.38.1",
            traits: countsAllocations ? ["MallocInterposer"] : []),
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
