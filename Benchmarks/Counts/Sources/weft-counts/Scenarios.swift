import CountsModel
import Weft

/// One measured operation, done `count` times after a setup that a run with `count == 0` measures alone.
struct Scenario: Sendable {
    let name: String
    let what: String
    let hand: @Sendable (Int) async throws -> Void
    let weft: @Sendable (Int) async throws -> Void
}

let scenarios: [Scenario] = [
    Scenario(
        name: "transient",
        what: "resolve A(b: B(c: C()), c: C()), all .transient, factories call r.resolve(X.self)!",
        hand: { count in
            for _ in 0..<count { sink(A(b: B(c: C()), c: C()) as any AProto) }
        },
        weft: { count in
            let container = graphContainer(scope: .transient, require: false)
            for _ in 0..<count { sink(container.resolve((any AProto).self)!) }
        }
    ),
    Scenario(
        name: "transient-require",
        what: "the same with `try r.require(X.self)` in the factories and `try container.require`",
        hand: { count in
            for _ in 0..<count { sink(A(b: B(c: C()), c: C()) as any AProto) }
        },
        weft: { count in
            let container = graphContainer(scope: .transient, require: true)
            for _ in 0..<count { sink(try container.require((any AProto).self)) }
        }
    ),
    Scenario(
        name: "graph",
        what: "resolve A(b: B(c: c), c: c), all .graph: C shared within the resolve",
        hand: { count in
            for _ in 0..<count {
                let c = C()
                sink(A(b: B(c: c), c: c) as any AProto)
            }
        },
        weft: { count in
            let container = graphContainer(scope: .graph, require: false)
            for _ in 0..<count { sink(container.resolve((any AProto).self)!) }
        }
    ),
    Scenario(
        name: "singleton",
        what: "resolve a built .container C; by hand, a stored let",
        hand: { count in
            let singletons = Singletons()
            for _ in 0..<count { sink(singletons.c) }
        },
        weft: { count in
            let container = Container()
            container.register((any CProto).self) { _ in C() }.inObjectScope(.container)
            _ = container.resolve((any CProto).self)
            for _ in 0..<count { sink(container.resolve((any CProto).self)!) }
        }
    ),
    Scenario(
        name: "named-10000",
        what: "resolve one of 10,000 named .container services; by hand, a [String: C] lookup",
        hand: { count in
            let services = Dictionary(uniqueKeysWithValues: (0..<10_000).map { ("service-\($0)", C() as any CProto) })
            let name = "service-4242"
            for _ in 0..<count { sink(services[name]!) }
        },
        weft: { count in
            let container = Container()
            for index in 0..<10_000 {
                container.register((any CProto).self, name: "service-\(index)") { _ in C() }.inObjectScope(.container)
            }
            let name = "service-4242"
            _ = container.resolve((any CProto).self, name: name)
            for _ in 0..<count { sink(container.resolve((any CProto).self, name: name)!) }
        }
    ),
    Scenario(
        name: "scope",
        what: "per unit of work: makeScope(), resolve one .scoped Work(c:), end(); by hand, a per-request object",
        hand: { count in
            for _ in 0..<count {
                let request = Request()
                sink(request.work!)
                await request.end()
            }
        },
        weft: { count in
            let container = Container()
            container.register((any CProto).self) { _ in C() }.inObjectScope(.transient)
            container.register(Work.self) { r in Work(c: r.resolve((any CProto).self)!) }.inObjectScope(.scoped)
            for _ in 0..<count {
                let scope = container.makeScope()
                sink(try scope.require(Work.self))
                try await scope.end()
            }
        }
    ),
    Scenario(
        name: "scope-teardown",
        what: "per unit of work with teardown: makeScope(), resolve a .scoped Teardown twice, end(); by hand, closed",
        hand: { count in
            let c: any CProto = C()
            for _ in 0..<count {
                let request = ClosingRequest(c: c)
                sink(request.work)
                sink(request.work)
                await request.end()
            }
        },
        weft: { count in
            let container = Container()
            container.register((any CProto).self) { _ in C() }.inObjectScope(.container)
            container.register(ClosingWork.self) { r in ClosingWork(c: r.resolve((any CProto).self)!) }
                .inObjectScope(.scoped)
            for _ in 0..<count {
                let scope = container.makeScope()
                sink(try scope.require(ClosingWork.self))
                sink(try scope.require(ClosingWork.self))
                try await scope.end()
            }
        }
    ),
    Scenario(
        name: "scope-async-teardown",
        what: "per unit of work with an async teardown: makeScope(), a .scoped actor, end(); by hand, committed",
        hand: { count in
            let c: any CProto = C()
            for _ in 0..<count {
                let request = CommittingRequest(c: c)
                sink(request.work)
                await request.end()
            }
        },
        weft: { count in
            let container = Container()
            container.register((any CProto).self) { _ in C() }.inObjectScope(.container)
            container.register(CommittingWork.self) { r in CommittingWork(c: r.resolve((any CProto).self)!) }
                .inObjectScope(.scoped)
            for _ in 0..<count {
                let scope = container.makeScope()
                sink(try scope.require(CommittingWork.self))
                try await scope.end()
            }
        }
    ),
    Scenario(
        name: "async-transient",
        what: "try await container.async.require(A) with async .transient factories; by hand, async functions",
        hand: { count in
            for _ in 0..<count { sink(await makeA()) }
        },
        weft: { count in
            let container = Container()
            container.register((any CProto).self) { (_: AsyncResolver) async in C() }.inObjectScope(.transient)
            container.register((any BProto).self) { (r: AsyncResolver) async throws in
                B(c: try await r.require((any CProto).self))
            }
            .inObjectScope(.transient)
            container.register((any AProto).self) { (r: AsyncResolver) async throws in
                A(b: try await r.require((any BProto).self), c: try await r.require((any CProto).self))
            }
            .inObjectScope(.transient)
            for _ in 0..<count { sink(try await container.async.require((any AProto).self)) }
        }
    ),
    Scenario(
        name: "async-graph",
        what: "the async graph of `async-transient` in the default .graph scope: C shared within the resolve",
        hand: { count in
            for _ in 0..<count { sink(await makeSharingA()) }
        },
        weft: { count in
            let container = Container()
            container.register((any CProto).self) { (_: AsyncResolver) async in C() }
            container.register((any BProto).self) { (r: AsyncResolver) async throws in
                B(c: try await r.require((any CProto).self))
            }
            container.register((any AProto).self) { (r: AsyncResolver) async throws in
                A(b: try await r.require((any BProto).self), c: try await r.require((any CProto).self))
            }
            for _ in 0..<count { sink(try await container.async.require((any AProto).self)) }
        }
    ),
    Scenario(
        name: "async-sync-factories",
        what: "try await container.async.require(A) with the synchronous .transient factories of `transient`",
        hand: { count in
            for _ in 0..<count { sink(await makeA()) }
        },
        weft: { count in
            let container = graphContainer(scope: .transient, require: true)
            for _ in 0..<count { sink(try await container.async.require((any AProto).self)) }
        }
    ),
    Scenario(
        name: "arguments",
        what: "resolve B with a runtime argument, B(c: c), .transient; by hand, B(c: c)",
        hand: { count in
            let c: any CProto = C()
            for _ in 0..<count { sink(B(c: c) as any BProto) }
        },
        weft: { count in
            let container = Container()
            container.register((any BProto).self) { (_: Resolver, c: any CProto) in B(c: c) }
                .inObjectScope(.transient)
            let c: any CProto = C()
            // `as any CProto`: Swift would otherwise pass `c` as a `C` (it opens existentials passed to generic
            // parameters), a request for another key (see `arguments-opened`).
            for _ in 0..<count { sink(container.resolve((any BProto).self, argument: c as any CProto)!) }
        }
    ),
    Scenario(
        name: "arguments-opened",
        what: "`arguments` with `c` passed as held: Swift hands Weft a C, found through the declared (any CProto)",
        hand: { count in
            let c: any CProto = C()
            for _ in 0..<count { sink(B(c: c) as any BProto) }
        },
        weft: { count in
            let container = Container()
            container.register((any BProto).self) { (_: Resolver, c: any CProto) in B(c: c) }
                .inObjectScope(.transient)
            let c: any CProto = C()
            for _ in 0..<count { sink(container.resolve((any BProto).self, argument: c)!) }
        }
    ),
    Scenario(
        name: "async-arguments",
        what: "try await container.async.require(B, arguments: c), an async .transient factory; by hand, async",
        hand: { count in
            let c: any CProto = C()
            for _ in 0..<count { sink(await makeB(c: c)) }
        },
        weft: { count in
            let container = Container()
            container.register((any BProto).self) { (_: AsyncResolver, c: any CProto) async in B(c: c) }
                .inObjectScope(.transient)
            let c: any CProto = C()
            for _ in 0..<count {
                sink(try await container.async.require((any BProto).self, arguments: c as any CProto))
            }
        }
    ),
    Scenario(
        name: "async-singleton",
        what: "try await container.async.require(C), a built .container C with an async factory; by hand, a let",
        hand: { count in
            let singletons = Singletons()
            for _ in 0..<count { sink(await singletons.read()) }
        },
        weft: { count in
            let container = Container()
            container.register((any CProto).self) { (_: AsyncResolver) async in C() }.inObjectScope(.container)
            _ = try await container.async.require((any CProto).self)
            for _ in 0..<count { sink(try await container.async.require((any CProto).self)) }
        }
    ),
    Scenario(
        name: "register",
        what: "register one service under a new name; by hand, a closure stored in a [String: closure]",
        hand: { count in
            var factories: [String: () -> any CProto] = [:]
            let names = (0..<count).map { "service-\($0)" }
            for name in names { factories[name] = { C() } }
            sink(factories as AnyObject)
        },
        weft: { count in
            let container = Container()
            let names = (0..<count).map { "service-\($0)" }
            for name in names { container.register((any CProto).self, name: name) { _ in C() } }
            sink(container)
        }
    ),
    Scenario(
        name: "replace-100000",
        what: "replace one of 100,000 registrations; by hand, a closure replaced in a [String: closure]",
        hand: { count in
            var factories: [String: () -> any CProto] = [:]
            for index in 0..<100_000 { factories["service-\(index)"] = { C() } }
            let name = "service-4242"
            for _ in 0..<count { factories[name] = { C() } }
            sink(factories as AnyObject)
        },
        weft: { count in
            let container = Container()
            for index in 0..<100_000 { container.register((any CProto).self, name: "service-\(index)") { _ in C() } }
            let name = "service-4242"
            for _ in 0..<count { container.register((any CProto).self, name: name) { _ in C() } }
            sink(container)
        }
    ),
]

/// Wide graphs at two sizes, in the scopes whose bookkeeping grows with the graph: the cost per service stays
/// the same as the graph grows when that bookkeeping is linear. Run by name with a small N.
let wide: [Scenario] = [1_000, 20_000].flatMap { width in
    [
        wideGraph(width, scope: .graph, label: "graph"),
        wideGraph(width, scope: .container, label: "container"),
        wideGraph(width, scope: .graph, label: "callbacks", callbacks: true),
        wideGraph(width, scope: .container, label: "container-callbacks", callbacks: true, reset: true),
    ]
} + [250, 500, 1_000].flatMap { length in
    [
        verifyChain(length, scope: .graph, label: "graph"),
        verifyChain(length, scope: .container, label: "container"),
        verifyChain(length, scope: .transient, label: "transient"),
    ]
}

/// `verify()` of a chain of `length` services in `scope`, each requiring the next, checked by name: its cost
/// per service stays flat as the chain grows when verification is linear.
func verifyChain(_ length: Int, scope: ObjectScope, label: String) -> Scenario {
    final class Node: Sendable {
        let next: Node?
        init(next: Node?) { self.next = next }
    }
    return Scenario(
        name: "verify-\(label)-chain-\(length)",
        what: "verify() a chain of \(length) \(label) services",
        hand: { count in
            for _ in 0..<count { sink((0..<length).reduce(nil as Node?) { next, _ in Node(next: next) } as AnyObject) }
        },
        weft: { count in
            let container = Container()
            for index in 0..<length {
                container.register(Node.self, name: "n\(index)") { r in
                    Node(next: index + 1 < length ? try r.require(Node.self, name: "n\(index + 1)") : nil)
                }
                .inObjectScope(scope)
            }
            for _ in 0..<count {
                try container.verify()
                sink(container)
            }
        }
    )
}

/// One resolve of a root whose factory requires `width` distinct services in `scope` (with an `initCompleted`
/// callback each when `callbacks`, and their scope reset after each resolve when `reset`); by hand, `width`
/// objects in an array.
func wideGraph(_ width: Int, scope: ObjectScope, label: String, callbacks: Bool = false, reset: Bool = false)
    -> Scenario
{
    let names = (0..<width).map { "leaf-\($0)" }
    return Scenario(
        name: "wide-\(label)-\(width)",
        what: "resolve a root that requires \(width) distinct \(label) services",
        hand: { count in
            for _ in 0..<count { sink(names.map { _ in C() as any CProto } as AnyObject) }
        },
        weft: { count in
            let container = Container()
            for name in names {
                let entry = container.register((any CProto).self, name: name) { _ in C() }.inObjectScope(scope)
                if callbacks { entry.initCompleted { _, c in sink(c) } }
            }
            container.register([any CProto].self) { r in try names.map { try r.require((any CProto).self, name: $0) } }
            for _ in 0..<count {
                sink(try container.require([any CProto].self) as AnyObject)
                // Singletons made anew each time, so that every resolve builds (and claims) them all.
                if reset { container.resetObjectScope(.container) }
            }
        }
    )
}

/// The A-B-C graph registered in `scope`, with `resolve(...)!` or `try require(...)` in the factories.
func graphContainer(scope: ObjectScope, require: Bool) -> Container {
    let container = Container()
    container.register((any CProto).self) { _ in C() }.inObjectScope(scope)
    if require {
        container.register((any BProto).self) { r in B(c: try r.require((any CProto).self)) }.inObjectScope(scope)
        container.register((any AProto).self) { r in
            A(b: try r.require((any BProto).self), c: try r.require((any CProto).self))
        }
        .inObjectScope(scope)
    } else {
        container.register((any BProto).self) { r in B(c: r.resolve((any CProto).self)!) }.inObjectScope(scope)
        container.register((any AProto).self) { r in
            A(b: r.resolve((any BProto).self)!, c: r.resolve((any CProto).self)!)
        }
        .inObjectScope(scope)
    }
    return container
}

/// Singletons kept by hand.
final class Singletons: Sendable {
    let c: any CProto = C()

    /// The stored singleton, read through an async call as an async resolve is.
    func read() async -> any CProto { c }
}

/// A hand-written per-request object: builds its unit of work and drops it at the end.
final class Request {
    private(set) var work: Work? = Work(c: C())

    func end() async { work = nil }
}

/// By hand, the unit of work of `scope-teardown`: made with the request, closed at its end.
final class ClosingRequest {
    let work: ClosingWork

    init(c: any CProto) { work = ClosingWork(c: c) }

    func end() async { work.close() }
}

/// By hand, the unit of work of `scope-async-teardown`: made with the request, committed at its end.
final class CommittingRequest {
    let work: CommittingWork

    init(c: any CProto) { work = CommittingWork(c: c) }

    func end() async { await work.commit() }
}

extension CommittingWork: AsyncTeardown {
    public func tearDown() async { commit() }
}

extension ClosingWork: Teardown {
    public func tearDown() { close() }
}

func makeC() async -> any CProto { C() }
func makeB() async -> any BProto { B(c: await makeC()) }
func makeA() async -> any AProto { A(b: await makeB(), c: await makeC()) }
func makeB(c: any CProto) async -> any BProto { B(c: c) }
func makeSharingA() async -> any AProto {
    let c = await makeC()
    return A(b: await makeB(c: c), c: c)
}
