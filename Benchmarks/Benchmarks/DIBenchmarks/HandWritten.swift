import Benchmark

// The baseline: the same work wired by hand, as an app without a container would write it.

/// Singletons an app keeps by hand: stored lets, built once.
private final class Singletons {
    let c: any CProto = C()
}

/// A hand-written "parent container": it knows how to make the shared services.
private final class ParentScope {
    func makeC() -> any CProto { C() }
}

/// A hand-written "child container": a per-request object that asks its parent for services.
private final class ChildScope {
    let parent: ParentScope

    init(parent: ParentScope) {
        self.parent = parent
    }

    func makeC() -> any CProto { parent.makeC() }
}

func registerHandWrittenBenchmarks() {
    let library = "HandWritten"

    Benchmark("1-transient/\(library)") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(A(b: B(c: C()), c: C()) as any AProto)
        }
    }

    Benchmark("2-graph/\(library)") { benchmark in
        for _ in benchmark.scaledIterations {
            let c = C()
            blackHole(A(b: B(c: c), c: c) as any AProto)
        }
    }

    Benchmark("3-singleton/\(library)") { benchmark, singletons in
        for _ in benchmark.scaledIterations {
            blackHole(singletons.c)
        }
    } setup: {
        Singletons()
    }

    for (scenario, count) in [("4a-named100", Size.fewNames), ("4b-named10000", Size.manyNames)] {
        Benchmark("\(scenario)/\(library)") { (benchmark: Benchmark, lookup: ([String: any CProto], String)) in
            let (services, name) = lookup
            for _ in benchmark.scaledIterations {
                blackHole(services[name]!)
            }
        } setup: {
            let services = Dictionary(uniqueKeysWithValues: Size.names(count).map { ($0, C() as any CProto) })
            return (services, Size.lookedUpName(among: count))
        }
    }

    Benchmark("5-register10000/\(library)", configuration: unscaled()) { _, names in
        var factories: [String: () -> any CProto] = [:]
        for name in names {
            factories[name] = { C() }
        }
        blackHole(factories)
    } setup: {
        Size.names(Size.registrations)
    }

    Benchmark("6-child/\(library)") { benchmark, parent in
        for _ in benchmark.scaledIterations {
            let child = ChildScope(parent: parent)
            blackHole(child.makeC())
            blackHole(child)
        }
    } setup: {
        ParentScope()
    }

    Benchmark("7a-threads1/\(library)", configuration: unscaled()) { _ in
        for _ in 0..<2 * Size.perThread {
            blackHole(A(b: B(c: C()), c: C()) as any AProto)
        }
    }

    Benchmark("7b-threads2/\(library)", configuration: unscaled()) { _ in
        onTwoThreads { _ in
            for _ in 0..<Size.perThread {
                blackHole(A(b: B(c: C()), c: C()) as any AProto)
            }
        }
    }

    Benchmark("8-async/\(library)") { benchmark async in
        for _ in benchmark.scaledIterations {
            blackHole(await AsyncWiring.makeA())
        }
    }

    Benchmark("9-scope/\(library)") { benchmark, singletons in
        for _ in benchmark.scaledIterations {
            let unit = Unit(c: singletons.c)
            blackHole(unit as any UnitProto)
            blackHole(unit as any UnitProto)
            unit.tearDown()
        }
    } setup: {
        Singletons()
    }
}
