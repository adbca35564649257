import Benchmark
import Foundation

// Each scenario is measured for the hand-written baseline, Weft and Swinject. The plugin runs the
// benchmarks sorted by name, one process each, so the three of a scenario run one after another.
// Names are `<number>-<scenario>/<library>`; summarize.py reads them back. run.sh runs the suite
// several times (rounds), so each benchmark gets only 0.6 s per round.
//
// Times and allocations are measured in separate passes (run.sh does both): counting mallocs costs
// about 10 ns per malloc and free, which would flatter every library against the hand-written
// baseline. With WEFT_BENCHMARKS_COUNT_ALLOCATIONS set, each benchmark runs a few samples and
// counts mallocs only.

let benchmarks: @Sendable () -> Void = {
    if ProcessInfo.processInfo.environment["WEFT_BENCHMARKS_COUNT_ALLOCATIONS"] != nil {
        Benchmark.defaultConfiguration = .init(
            metrics: [.mallocCountTotal],
            warmupIterations: 3,
            scalingFactor: .kilo,
            maxDuration: .seconds(1),
            maxIterations: 10
        )
    } else {
        Benchmark.defaultConfiguration = .init(
            metrics: [.wallClock],
            warmupIterations: 3,
            scalingFactor: .kilo,
            maxDuration: .milliseconds(600),
            maxIterations: 1_000_000
        )
    }

    registerHandWrittenBenchmarks()
    registerWeftBenchmarks()
    registerWeftAsyncBenchmarks()
    registerSwinjectBenchmarks()
}

/// The configuration of the scenarios whose samples are not 1,000 operations (registration, threads).
func unscaled() -> Benchmark.Configuration {
    Benchmark.Configuration(scalingFactor: .one)
}
