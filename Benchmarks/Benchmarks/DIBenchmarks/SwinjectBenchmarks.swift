import Benchmark
import Swinject

// The scenarios through Swinject 2.10.0.

/// The graph `A(b: B(c: C()), c: C())`: everything `.transient`, or in the default `.graph` scope
/// (where the graph shares one `C`).
private func graphContainer(transient: Bool) -> Container {
    let container = Container()
    let c = container.register(CProto.self) { _ in C() }
    let b = container.register(BProto.self) { r in B(c: r.resolve(CProto.self)!) }
    let a = container.register(AProto.self) { r in
        A(b: r.resolve(BProto.self)!, c: r.resolve(CProto.self)!)
    }
    if transient {
        c.inObjectScope(.transient)
        b.inObjectScope(.transient)
        a.inObjectScope(.transient)
    }
    check(container.resolve(AProto.self), sharesC: !transient, "Swinject")
    return container
}

func registerSwinjectBenchmarks() {
    let library = "Swinject"

    Benchmark("1-transient/\(library)") { benchmark, container in
        for _ in benchmark.scaledIterations {
            blackHole(container.resolve(AProto.self)!)
        }
    } setup: {
        graphContainer(transient: true)
    }

    Benchmark("2-graph/\(library)") { benchmark, container in
        for _ in benchmark.scaledIterations {
            blackHole(container.resolve(AProto.self)!)
        }
    } setup: {
        graphContainer(transient: false)
    }

    Benchmark("3-singleton/\(library)") { (benchmark: Benchmark, container: Container) in
        for _ in benchmark.scaledIterations {
            blackHole(container.resolve(CProto.self)!)
        }
    } setup: {
        let container = Container()
        container.register(CProto.self) { _ in C() }.inObjectScope(.container)
        _ = container.resolve(CProto.self)
        return container
    }

    for (scenario, count) in [("4a-named100", Size.fewNames), ("4b-named10000", Size.manyNames)] {
        Benchmark("\(scenario)/\(library)") { (benchmark: Benchmark, lookup: (Container, String)) in
            let (container, name) = lookup
            for _ in benchmark.scaledIterations {
                blackHole(container.resolve(CProto.self, name: name)!)
            }
        } setup: {
            let container = Container()
            for name in Size.names(count) {
                container.register(CProto.self, name: name) { _ in C() }.inObjectScope(.container)
            }
            let name = Size.lookedUpName(among: count)
            _ = container.resolve(CProto.self, name: name)
            return (container, name)
        }
    }

    Benchmark("5-register10000/\(library)", configuration: unscaled()) { _, names in
        let container = Container()
        for name in names {
            container.register(CProto.self, name: name) { _ in C() }
        }
        blackHole(container)
    } setup: {
        Size.names(Size.registrations)
    }

    Benchmark("6-child/\(library)") { benchmark, parent in
        for _ in benchmark.scaledIterations {
            let child = Container(parent: parent)
            blackHole(child.resolve(CProto.self)!)
            blackHole(child)
        }
    } setup: {
        let parent = Container()
        parent.register(CProto.self) { _ in C() }.inObjectScope(.transient)
        return parent
    }

    // Swinject is thread-safe only through `synchronize()`, which serializes every resolve on one
    // recursive lock: both thread scenarios resolve through it, so their ratio is the gain from a
    // second thread, like for like.
    Benchmark("7a-threads1/\(library)", configuration: unscaled()) { _, resolver in
        for _ in 0..<2 * Size.perThread {
            blackHole(resolver.resolve(AProto.self)!)
        }
    } setup: {
        graphContainer(transient: true).synchronize()
    }

    Benchmark("7b-threads2/\(library)", configuration: unscaled()) { _, resolver in
        onTwoThreads { _ in
            for _ in 0..<Size.perThread {
                blackHole(resolver.value.resolve(AProto.self)!)
            }
        }
    } setup: {
        ThreadSafe(value: graphContainer(transient: true).synchronize())
    }

    // Swinject has no async factories: the same graph, resolved from async code.
    Benchmark("8-async/\(library)") { (benchmark: Benchmark, container: Container) async in
        for _ in benchmark.scaledIterations {
            blackHole(container.resolve(AProto.self)!)
        }
    } setup: {
        graphContainer(transient: false)
    }

    // Swinject has no scopes: a child container per unit of work, with its own `.container` registration.
    Benchmark("9-scope/\(library)") { (benchmark: Benchmark, parent: Container) in
        for _ in benchmark.scaledIterations {
            let child = Container(parent: parent)
            child.register(UnitProto.self) { r in Unit(c: r.resolve(CProto.self)!) }.inObjectScope(.container)
            let unit = child.resolve(UnitProto.self)!
            precondition(child.resolve(UnitProto.self)! === unit)
            blackHole(unit)
            (unit as? Unit)?.tearDown()
        }
    } setup: {
        let parent = Container()
        parent.register(CProto.self) { _ in C() }.inObjectScope(.container)
        return parent
    }
}
