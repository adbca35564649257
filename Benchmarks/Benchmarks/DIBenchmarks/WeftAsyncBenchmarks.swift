import Benchmark
import Weft

// Scenarios 8 and 9 through Weft: async factories, and a scope per unit of work.

extension Unit: Teardown {}

func registerWeftAsyncBenchmarks() {
    let library = "Weft"

    Benchmark("8-async/\(library)") { (benchmark: Benchmark, container: Container) async in
        for _ in benchmark.scaledIterations {
            blackHole(try! await container.async.require(AProto.self))
        }
    } setup: {
        let container = Container()
        container.register(CProto.self) { (_: AsyncResolver) async in C() }
        container.register(BProto.self) { r in B(c: try await r.require(CProto.self)) }
        container.register(AProto.self) { r in
            A(b: try await r.require(BProto.self), c: try await r.require(CProto.self))
        }
        return container
    }

    Benchmark("9-scope/\(library)") { (benchmark: Benchmark, container: Container) async in
        for _ in benchmark.scaledIterations {
            let scope = container.makeScope()
            let unit = scope.resolve(UnitProto.self)!
            precondition(scope.resolve(UnitProto.self)! === unit)
            blackHole(unit)
            try! await scope.end()
        }
    } setup: {
        let container = Container()
        container.register(CProto.self) { _ in C() }.inObjectScope(.container)
        container.register(UnitProto.self) { r in Unit(c: r.resolve(CProto.self)!) }.inObjectScope(.scoped)
        return container
    }
}
