import Dispatch

// The services every scenario builds: three classes reached through protocols, as an app would
// register them. `A(b: B(c: C()), c: C())` is the object graph of scenarios 1, 2 and 7.

protocol CProto: AnyObject {}

protocol BProto: AnyObject {
    var c: any CProto { get }
}

protocol AProto: AnyObject {
    var b: any BProto { get }
    var c: any CProto { get }
}

final class C: CProto {
    init() {}
}

final class B: BProto {
    let c: any CProto

    init(c: any CProto) {
        self.c = c
    }
}

final class A: AProto {
    let b: any BProto
    let c: any CProto

    init(b: any BProto, c: any CProto) {
        self.b = b
        self.c = c
    }
}

/// The sizes of the scenarios; `summarize.py` divides each sample by the same numbers
/// (its `OPERATIONS` table), so change both together.
enum Size {
    /// Registrations of the same type, each under its own name, in the named-lookup scenarios.
    static let fewNames = 100
    static let manyNames = 10_000
    /// Services registered per sample in the registration scenario.
    static let registrations = 10_000
    /// Resolves per thread per sample in the two-thread scenario; the one-thread scenario does
    /// twice as many on one thread.
    static let perThread = 10_000

    /// `service-0`, `service-1`, ...: the registration names.
    static func names(_ count: Int) -> [String] {
        (0..<count).map { "service-\($0)" }
    }

    /// The name looked up among `count` registrations: one in the middle.
    static func lookedUpName(among count: Int) -> String {
        "service-\(count / 2)"
    }
}

/// Runs `body(thread)` on two threads at once (the calling thread and a dispatch worker) and
/// returns when both are done.
func onTwoThreads(_ body: @Sendable (Int) -> Void) {
    DispatchQueue.concurrentPerform(iterations: 2, execute: body)
}

/// Hands a value that is thread-safe by contract but not `Sendable` in its type (Swinject's
/// `synchronize()`d resolver) to ``onTwoThreads(_:)``.
struct ThreadSafe<Value>: @unchecked Sendable {
    let value: Value
}

/// Stops the run when a container builds the wrong graph, so that a library that shares or
/// duplicates the wrong instance cannot look fast.
func check(_ graph: (any AProto)?, sharesC: Bool, _ library: String) {
    guard let graph else { fatalError("\(library): the graph did not resolve") }
    guard (graph.b.c === graph.c) == sharesC else {
        fatalError("\(library): C is \(sharesC ? "not " : "")shared inside the graph")
    }
}

/// The per-unit-of-work service of scenario 9: made once per scope from a singleton, torn down at the
/// scope's end.
protocol UnitProto: AnyObject {
    var c: any CProto { get }
}

final class Unit: UnitProto {
    let c: any CProto
    private(set) var open = true

    init(c: any CProto) {
        self.c = c
    }

    func tearDown() {
        open = false
    }
}

/// Hand-written async construction of `A(b: B(c: C()), c: C())` with `C` shared, one async function per
/// service, as scenario 8's baseline.
enum AsyncWiring {
    @inline(never)
    static func makeC() async -> any CProto { C() }

    @inline(never)
    static func makeB(c: any CProto) async -> any BProto { B(c: c) }

    @inline(never)
    static func makeA() async -> any AProto {
        let c = await makeC()
        return A(b: await makeB(c: c), c: c)
    }
}
