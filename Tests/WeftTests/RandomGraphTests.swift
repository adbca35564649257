import Foundation
import PropertyBased
import Testing
import Weft

/// Property-based tests: random registration graphs (random scopes, names, missing registrations, cycles
/// through factories and through `initCompleted`) resolved by Weft and by the reference model in
/// `RandomGraphModel.swift`, step by step.
@Suite struct RandomGraphTests {
    // MARK: - Random graphs

    @Test func weftMakesExactlyTheInstancesAndErrorsTheReferenceModelPredicts() async {
        await propertyCheck(count: 1000, input: RandomGraphs.cases) { graphCase in
            _ = GraphRun(graphCase).run(checkingInvariants: false)
        }
    }

    @Test func randomGraphsShareInstancesPerScopeRunFactoriesOnceAndRecoverFromFailures() async {
        var falseCycles: [String] = []
        await propertyCheck(count: 1000, input: RandomGraphs.cases) { graphCase in
            falseCycles += GraphRun(graphCase).run(comparingWithModel: false).falseCycles
        }
        #expect(falseCycles.isEmpty, "registered, acyclic roots that failed: \(falseCycles)")
    }

    @Test func randomGraphsCoverSuccessesMissingRegistrationsAndBothKindsOfCycle() {
        var rng = Xoshiro(seed: (1, 2, 3, 4))
        var successes = 0
        var missing = 0
        var factoryCycles = 0
        var callbackCycles = 0
        var successesAfterFailure = 0
        for _ in 0..<1000 {
            let graphCase = RandomGraphs.cases.run(using: &rng)
            var model = GraphModel(services: graphCase.services)
            var failedBefore = false
            for case .require(let root) in graphCase.steps {
                switch model.require(root) {
                case .success:
                    successes += 1
                    if failedBefore { successesAfterFailure += 1 }
                case .failure(.missingRegistration, _):
                    missing += 1
                    failedBefore = true
                case .failure(.circularDependency, let path):
                    // Weft's second rule: a service already twice on the path (a loop through callbacks).
                    if path.dropLast().count(where: { $0 == path.last }) >= 2 {
                        callbackCycles += 1
                    } else {
                        factoryCycles += 1
                    }
                    failedBefore = true
                }
            }
        }
        #expect(successes > 500)
        #expect(missing > 100)
        #expect(factoryCycles > 100)
        #expect(callbackCycles > 20)
        #expect(successesAfterFailure > 30)
    }

    // MARK: - Hand-picked graphs that check the model itself

    /// The seed's parent/child cycle: the parent's factory takes the child, the child's `initCompleted` sets
    /// its parent.
    @Test(arguments: ModelScope.allCases, ModelScope.allCases)
    func seedParentChildCycleResolvesUnlessBothAreTransient(parentScope: ModelScope, childScope: ModelScope) {
        let parent = RandomServiceSpec(
            scope: parentScope, registration: .registered, factoryDeps: [1], callbackDeps: nil)
        let child = RandomServiceSpec(scope: childScope, registration: .registered, factoryDeps: [], callbackDeps: [0])
        let outcomes = GraphRun(GraphCase(services: [parent, child], steps: [.require(0)], synchronized: false))
            .run().outcomes

        // Derived by hand from the engine: serials count factory calls; the child is made first.
        let expected: ModelOutcome
        let records: [GraphInstanceRecord]
        switch (parentScope, childScope) {
        case (.transient, .transient):
            // The child's callback makes a second parent, whose factory makes a second child, whose callback
            // asks for a third parent: the transient pair would go on for ever.
            expected = .failure(.circularDependency, path: [0, 1, 0, 1, 0])
            records =
                [.init(service: 1, factoryDeps: []), .init(service: 0, factoryDeps: [0])]
                + [.init(service: 1, factoryDeps: []), .init(service: 0, factoryDeps: [2])]
        case (.transient, _):
            // The stored child gets a parent of its own: a second transient parent holding the same child.
            expected = .success(serial: 1)
            records = [
                .init(service: 1, factoryDeps: [], callbackDeps: [2]), .init(service: 0, factoryDeps: [0]),
                .init(service: 0, factoryDeps: [0]),
            ]
        default:
            expected = .success(serial: 1)
            records = [.init(service: 1, factoryDeps: [], callbackDeps: [1]), .init(service: 0, factoryDeps: [0])]
        }
        #expect(outcomes == [expected])
        var model = GraphModel(services: [parent, child])
        #expect(model.require(0) == expected)
        #expect(model.instances == records)
    }

    @Test(arguments: ModelScope.allCases)
    func factoryCycleIsCircularDependencyInEveryScope(scope: ModelScope) {
        let services = [
            RandomServiceSpec(scope: scope, registration: .registered, factoryDeps: [1], callbackDeps: nil),
            RandomServiceSpec(scope: .graph, registration: .registered, factoryDeps: [0], callbackDeps: nil),
        ]
        let outcomes = GraphRun(GraphCase(services: services, steps: [.require(0), .require(1)], synchronized: false))
            .run().outcomes
        #expect(
            outcomes == [
                .failure(.circularDependency, path: [0, 1, 0]), .failure(.circularDependency, path: [1, 0, 1]),
            ]
        )
    }

    @Test func failedGraphDiscardsSharedInstancesWhoseCallbacksDidNotRun() {
        // S0's factory makes S1 (container, no callback), S2 (container, callback) and then needs the missing S3.
        let services = [
            RandomServiceSpec(scope: .graph, registration: .registered, factoryDeps: [1, 2, 3], callbackDeps: nil),
            RandomServiceSpec(scope: .container, registration: .registered, factoryDeps: [], callbackDeps: nil),
            RandomServiceSpec(scope: .container, registration: .registered, factoryDeps: [], callbackDeps: [1]),
            RandomServiceSpec(scope: .graph, registration: .missingWithDecoy, factoryDeps: [], callbackDeps: nil),
        ]
        let steps: [GraphStep] = [.require(0), .require(1), .require(2), .require(2)]
        let outcomes = GraphRun(GraphCase(services: services, steps: steps, synchronized: false))
            .run().outcomes
        #expect(
            outcomes == [
                .failure(.missingRegistration, path: [0, 3]), .success(serial: 0), .success(serial: 2),
                .success(serial: 2),
            ]
        )
    }

    @Test func weakInstancesLiveWhileHeldAndContainerInstancesForever() {
        let services = [
            RandomServiceSpec(scope: .weak, registration: .registered, factoryDeps: [1], callbackDeps: nil),
            RandomServiceSpec(scope: .container, registration: .registered, factoryDeps: [], callbackDeps: [0]),
        ]
        let steps: [GraphStep] = [.require(0), .require(0), .releaseHeldInstances, .require(0), .require(1)]
        let outcomes = GraphRun(GraphCase(services: services, steps: steps, synchronized: true))
            .run().outcomes
        #expect(outcomes == [.success(serial: 1), .success(serial: 1), .success(serial: 2), .success(serial: 0)])
    }

    /// Three graph-scoped services set the same transient service in `initCompleted`: an acyclic graph that
    /// Swinject resolves. (Weft once ran the later callbacks nested inside the first one's resolve, so the
    /// third request for `Logger` counted as "on the path twice"; found by the random graphs.)
    @Test func transientServiceSetByThreeCallbacksIsNotACycle() {
        let container = Container()
        container.register(Logger.self) { _ in Logger() }.inObjectScope(.transient)
        for name in ["a", "b"] {
            container.register(Part.self, name: name) { _ in Part() }
                .initCompleted { r, part in part.logger = try r.require(Logger.self) }
        }
        container.register(Screen.self) { r in
            Screen(parts: [try r.require(Part.self, name: "a"), try r.require(Part.self, name: "b")])
        }
        .initCompleted { r, screen in screen.logger = try r.require(Logger.self) }

        #expect(throws: Never.self) {
            let screen = try container.require(Screen.self)
            #expect(screen.logger != nil && screen.parts.allSatisfy { $0.logger != nil })
        }

        let services = [
            RandomServiceSpec(scope: .graph, registration: .registered, factoryDeps: [1, 2], callbackDeps: [3]),
            RandomServiceSpec(scope: .graph, registration: .registered, factoryDeps: [], callbackDeps: [3]),
            RandomServiceSpec(scope: .graph, registration: .registered, factoryDeps: [], callbackDeps: [3]),
            RandomServiceSpec(scope: .transient, registration: .registered, factoryDeps: [], callbackDeps: nil),
        ]
        #expect(GraphCase(services: services, steps: [], synchronized: false).isStaticallyResolvable(0))
        var model = GraphModel(services: services)
        #expect(model.require(0) == .success(serial: 2))  // the two parts are made first
    }

    final class Logger: Sendable {}

    final class Part: @unchecked Sendable {
        var logger: Logger?
    }

    final class Screen: @unchecked Sendable {
        let parts: [Part]
        var logger: Logger?

        init(parts: [Part]) {
            self.parts = parts
        }
    }
}

// MARK: - Running a graph in Weft

/// An instance made by a random graph's factory: its service and its serial (its place among all factory calls).
private final class RandomNode: Sendable {
    let service: Int
    let serial: Int

    init(service: Int, serial: Int) {
        self.service = service
        self.serial = serial
    }
}

/// What Weft's factories and callbacks made and received, in the model's terms; it also holds every instance
/// made (so `.weak` instances live) until ``releaseHeld()``.
private final class InstanceLog: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [GraphInstanceRecord] = []
    private var held: [RandomNode] = []
    /// Every instance made, by serial, held weakly.
    private var made: [WeakNode] = []
    private var decoyCalls = 0

    private struct WeakNode {
        weak var node: RandomNode?
    }

    var records: [GraphInstanceRecord] { lock.withLock { recorded } }
    var decoys: Int { lock.withLock { decoyCalls } }

    func make(service: Int, factoryDeps: [Int]) -> RandomNode {
        lock.withLock {
            let node = RandomNode(service: service, serial: recorded.count)
            recorded.append(GraphInstanceRecord(service: service, factoryDeps: factoryDeps))
            held.append(node)
            made.append(WeakNode(node: node))
            return node
        }
    }

    func recordCallbackDep(_ dep: Int, of serial: Int) {
        lock.withLock { recorded[serial].callbackDeps.append(dep) }
    }

    /// The instance with `serial`, if it is still alive.
    func node(serial: Int) -> RandomNode? {
        lock.withLock { made.indices.contains(serial) ? made[serial].node : nil }
    }

    func releaseHeld() {
        let released = lock.withLock {
            defer { held = [] }
            return held
        }
        _ = released  // released here, outside the lock
    }

    func makeDecoy() -> RandomNode {
        lock.withLock { decoyCalls += 1 }
        return RandomNode(service: -1, serial: -1)
    }
}

/// Registers a ``GraphCase`` in a container and runs its steps in Weft and in the model.
private struct GraphRun {
    let graphCase: GraphCase

    init(_ graphCase: GraphCase) {
        self.graphCase = graphCase
    }

    /// The registration name of `S<service>`: S0 is registered without a name, the others as `"s<i>"`.
    static func name(_ service: Int) -> String? {
        service == 0 ? nil : "s\(service)"
    }

    /// How a request for `RandomNode` named `name` reads in a resolution path.
    static func pathComponent(name: String?) -> String {
        name.map { "RandomNode[\"\($0)\"]" } ?? "RandomNode"
    }

    static func register(_ graphCase: GraphCase, in container: Container, log: InstanceLog) {
        for (service, spec) in graphCase.services.enumerated() {
            switch spec.registration {
            case .missing:
                continue
            case .missingWithDecoy where service == 0:
                container.register(RandomNode.self, name: "s0") { _ in log.makeDecoy() }
            case .missingWithDecoy:
                container.register(RandomNode.self, name: name(service)) { (_: any Resolver, _: Int) in
                    log.makeDecoy()
                }
            case .registered:
                let factoryDeps = spec.factoryDeps
                let entry = container.register(RandomNode.self, name: name(service)) { r in
                    var received: [Int] = []
                    for dep in factoryDeps {
                        received.append(try r.require(RandomNode.self, name: name(dep)).serial)
                    }
                    return log.make(service: service, factoryDeps: received)
                }
                entry.inObjectScope(weftScope(spec.scope))
                if let callbackDeps = spec.callbackDeps {
                    entry.initCompleted { r, node in
                        for dep in callbackDeps {
                            log.recordCallbackDep(
                                try r.require(RandomNode.self, name: name(dep)).serial, of: node.serial)
                        }
                    }
                }
            }
        }
    }

    private static func weftScope(_ scope: ModelScope) -> ObjectScope {
        switch scope {
        case .graph: return .graph
        case .transient: return .transient
        case .container: return .container
        case .weak: return .weak
        }
    }

    /// Runs every step in a new container, comparing Weft with the model and/or checking the invariants
    /// that hold whatever the model says; returns Weft's outcomes and the known false cycles it met.
    func run(comparingWithModel: Bool = true, checkingInvariants: Bool = true) -> (
        outcomes: [ModelOutcome], falseCycles: [String]
    ) {
        let container = Container()
        let log = InstanceLog()
        Self.register(graphCase, in: container, log: log)
        let resolver: any Resolver = graphCase.synchronized ? container.synchronize() : container
        var model = GraphModel(services: graphCase.services)
        var outcomes: [ModelOutcome] = []
        var history = GraphHistory()
        var falseCycles: [String] = []
        for (index, step) in graphCase.steps.enumerated() {
            guard case .require(let root) = step else {
                log.releaseHeld()
                model.releaseHeldInstances()
                history.released = true
                continue
            }
            let start = log.records.count
            let outcome = require(root, from: resolver, log: log)
            outcomes.append(outcome)
            let records = log.records
            if comparingWithModel {
                let expected = model.require(root)
                #expect(outcome == expected, "step \(index): \(step)")
                #expect(records == model.instances, "instances after step \(index): \(step)")
                #expect(factoryCalls(records) == model.factoryCalls, "factory calls after step \(index): \(step)")
            }
            if case .success(let serial) = outcome {
                history.roots.append(serial)
            } else {
                history.failed = true
            }
            if checkingInvariants,
                let falseCycle = graphCase.checkInvariants(
                    root: root,
                    outcome: outcome,
                    records: records,
                    start: start,
                    history: history
                )
            {
                falseCycles.append("\(graphCase), step \(index): \(falseCycle)")
            }
        }
        #expect(log.decoys == 0, "a registration for another name or other arguments was used")
        return (outcomes, falseCycles)
    }

    /// A top-level require in Weft, in the model's terms.
    private func require(_ root: Int, from resolver: any Resolver, log: InstanceLog) -> ModelOutcome {
        do {
            let node = try resolver.require(RandomNode.self, name: Self.name(root))
            #expect(node.service == root)
            #expect(log.node(serial: node.serial) === node, "the returned instance is the one its factory made")
            return .success(serial: node.serial)
        } catch let error as ResolutionError {
            #expect(error.serviceType == "RandomNode")
            #expect(error.path.last == Self.pathComponent(name: error.name), "the path ends with the failing request")
            guard let reason = ModelFailureReason(rawValue: error.reason.rawValue) else {
                Issue.record("unexpected error: \(error)")
                return .failure(.missingRegistration, path: [])
            }
            let services = graphCase.services.indices
            let path = error.path.map { component in
                services.first { Self.pathComponent(name: Self.name($0)) == component } ?? -1
            }
            return .failure(reason, path: path)
        } catch {
            Issue.record("unexpected error: \(error)")
            return .failure(.missingRegistration, path: [])
        }
    }

    private func factoryCalls(_ records: [GraphInstanceRecord]) -> [Int] {
        var calls = Array(repeating: 0, count: graphCase.services.count)
        for record in records { calls[record.service] += 1 }
        return calls
    }
}
