import PropertyBased
import Testing

// Random registration graphs and what must happen when they are resolved, for the property-based tests in
// `RandomGraphTests.swift`: the graph description, its generator, a reference model (an interpreter over the
// description that mirrors the resolution engine in `Container+Making.swift` step by step) and the invariants
// that hold whatever the model says. Nothing here uses Weft.

/// The object scope of one service in a random graph.
enum ModelScope: Int, CaseIterable, Sendable {
    case graph, transient, container, weak

    /// Whether instances are stored (and so reused) at all.
    var isStored: Bool { self != .transient }
    /// Whether instances outlive their object graph (`.container`, `.weak`).
    var isShared: Bool { self == .container || self == .weak }
}

/// How a service of a random graph is registered.
enum ModelRegistration: Sendable, Equatable {
    /// Registered under its own name.
    case registered
    /// Not registered at all.
    case missing
    /// Not registered, but something close is (another name, or other argument types), which must not be used.
    case missingWithDecoy
}

/// One service `S<i>` of a random graph.
struct RandomServiceSpec: Sendable, Equatable, CustomStringConvertible {
    var scope: ModelScope
    var registration: ModelRegistration
    /// The services the factory requires, in order.
    var factoryDeps: [Int]
    /// The services an `initCompleted` callback requires, in order; `nil` when no callback is registered.
    var callbackDeps: [Int]?

    var description: String {
        switch registration {
        case .missing: return "missing"
        case .missingWithDecoy: return "missing(decoy)"
        case .registered:
            var text = "\(scope) f\(factoryDeps)"
            if let callbackDeps { text += " c\(callbackDeps)" }
            return text
        }
    }
}

/// One step of a test: a top-level `require`, or letting go of every instance the test holds.
enum GraphStep: Sendable, Equatable, CustomStringConvertible {
    case require(Int)
    /// Drops the test's strong references, so `.weak` instances die (container-scoped ones are kept by Weft).
    case releaseHeldInstances

    var description: String {
        switch self {
        case .require(let service): return "require S\(service)"
        case .releaseHeldInstances: return "release"
        }
    }
}

/// A random registration graph and the steps to run against it.
struct GraphCase: Sendable, CustomStringConvertible {
    var services: [RandomServiceSpec]
    var steps: [GraphStep]
    /// Whether the steps go through `container.synchronize()`.
    var synchronized: Bool

    var description: String {
        let graph = services.enumerated().map { "S\($0.offset): \($0.element)" }.joined(separator: "; ")
        return "[\(graph)] steps: \(steps)\(synchronized ? " (synchronized)" : "")"
    }

    /// Whether `root`, and everything it reaches through factories and callbacks, is registered and
    /// free of cycles: such a root must always resolve.
    func isStaticallyResolvable(_ root: Int) -> Bool {
        var state = [Int: Bool]()  // false: on the current path, true: finished
        func visit(_ service: Int) -> Bool {
            if let finished = state[service] { return finished }
            let spec = services[service]
            guard spec.registration == .registered else { return false }
            state[service] = false
            for dep in spec.factoryDeps + (spec.callbackDeps ?? []) where !visit(dep) { return false }
            state[service] = true
            return true
        }
        return visit(root)
    }
}

// MARK: - Generators

enum RandomGraphs {
    /// One service: scope, registration (one in ten missing), factory and callback dependencies.
    static let service = zip(
        Gen.int(in: 0...3),
        Gen.int(in: 0...19),
        Gen.int(in: 0...9).array(of: 0...2),
        Gen.int(in: 0...6).array(of: 0...2).optional(valueRate: 0.4)
    )

    /// 1–7 services, 1–4 steps (mostly requires of random roots), sometimes through `synchronize()`.
    ///
    /// Factory dependencies mostly point to a later service (so many graphs resolve); one in five may point
    /// anywhere (factory cycles). Callback dependencies point anywhere.
    static let cases = zip(service.array(of: 1...7), Gen.int(in: 0...8).array(of: 1...4), Gen.bool(0.25))
        .map { raw in
            let count = raw.0.count
            let services = raw.0.enumerated().map { index, service in
                RandomServiceSpec(
                    scope: ModelScope(rawValue: service.0)!,
                    registration: service.1 == 18 ? .missing : service.1 == 19 ? .missingWithDecoy : .registered,
                    factoryDeps: service.2.compactMap { pick in
                        if pick >= 8 { return pick % count }
                        let later = count - index - 1
                        return later > 0 ? index + 1 + pick % later : nil
                    },
                    callbackDeps: service.3?.map { $0 % count }
                )
            }
            let steps = raw.1.map { $0 == 8 ? GraphStep.releaseHeldInstances : .require($0 % count) }
            return GraphCase(services: services, steps: steps, synchronized: raw.2)
        }
}

/// What the model predicts for one instance: its service and the serial numbers of the instances it
/// received, from its factory and from its `initCompleted` callback. Serials count factory calls, from 0.
struct GraphInstanceRecord: Sendable, Equatable {
    let service: Int
    var factoryDeps: [Int]
    var callbackDeps: [Int] = []
}

/// Why a modelled resolution fails, spelled as `ResolutionError.Reason`'s raw values.
enum ModelFailureReason: String, Sendable {
    case missingRegistration, circularDependency
}

/// The outcome of one top-level require.
enum ModelOutcome: Sendable, Equatable {
    /// The serial of the returned instance.
    case success(serial: Int)
    /// The reason, and the path of services (indices), outermost first, ending with the failing request.
    case failure(ModelFailureReason, path: [Int])
}

/// The reference model: a direct transcription of `make`, `checkCycle`, `runPendingCompletions` and
/// `finish` over service indices, for one thread and fully registered-or-missing services.
struct GraphModel {
    private struct Failure: Error {
        let reason: ModelFailureReason
        let path: [Int]
    }

    let services: [RandomServiceSpec]
    /// Every instance made so far, indexed by serial.
    private(set) var instances: [GraphInstanceRecord] = []
    /// Instances kept across graphs (`.container`, and `.weak` while held): service to serial.
    private var sharedStore: [Int: Int] = [:]

    // The bookkeeping of the graph being resolved (ResolutionState).
    private var graphStore: [Int: Int] = [:]
    /// A frame of a deferred callback carries the path its instance was made along (`origin`).
    private var frames: [(service: Int, inFactory: Bool, origin: [Int]?)] = []
    private var factoriesRunning = 0
    private var pending: [(service: Int, serial: Int, claimed: Bool, origin: [Int])] = []

    /// The error path: the frames in flight, where a deferred callback's frame stands for its origin.
    private var path: [Int] {
        var result: [Int] = []
        for frame in frames {
            if let origin = frame.origin { result = origin } else { result.append(frame.service) }
        }
        return result
    }
    private var made: [Int] = []
    private var claims: [Int] = []

    init(services: [RandomServiceSpec]) {
        self.services = services
    }

    /// How often each service's factory ran so far.
    var factoryCalls: [Int] {
        var calls = Array(repeating: 0, count: services.count)
        for record in instances { calls[record.service] += 1 }
        return calls
    }

    /// A top-level `require(S<root>)` in a new object graph.
    mutating func require(_ root: Int) -> ModelOutcome {
        do throws(Failure) {
            let serial = try resolve(root)
            finish(failed: false)
            return .success(serial: serial)
        } catch {
            finish(failed: true)
            return .failure(error.reason, path: error.path)
        }
    }

    /// The test let go of every instance: `.weak` instances die, container-scoped ones stay.
    mutating func releaseHeldInstances() {
        sharedStore = sharedStore.filter { services[$0.key].scope != .weak }
    }

    private mutating func resolve(_ service: Int) throws(Failure) -> Int {
        let spec = services[service]
        guard spec.registration == .registered else {
            throw Failure(reason: .missingRegistration, path: path + [service])
        }
        if spec.scope.isStored, let stored = spec.scope.isShared ? sharedStore[service] : graphStore[service] {
            return stored
        }
        // Only shared registrations are claimed (on one thread a synchronized container adds claims that
        // change nothing: transient instances are never stored, graph-scoped ones die with a failed graph).
        let claimed = spec.scope.isShared && !claims.contains(service)
        if claimed { claims.append(service) }
        if let first = frames.firstIndex(where: { $0.service == service }) {
            let repeated = frames[(first + 1)...].contains { $0.service == service }
            if frames[first].inFactory || repeated {
                if claimed { release(service) }
                throw Failure(reason: .circularDependency, path: path + [service])
            }
        }

        let firstPending = pending.count
        frames.append((service, true, nil))
        factoriesRunning += 1
        var deps: [Int] = []
        do throws(Failure) {
            for dep in spec.factoryDeps { deps.append(try resolve(dep)) }
        } catch {
            factoriesRunning -= 1
            frames.removeLast()
            if claimed { release(service) }
            throw error
        }
        let serial = instances.count
        instances.append(GraphInstanceRecord(service: service, factoryDeps: deps))
        factoriesRunning -= 1
        frames[frames.count - 1].inFactory = false
        defer { frames.removeLast() }

        if spec.scope.isStored {
            if spec.scope.isShared { sharedStore[service] = serial } else { graphStore[service] = serial }
            made.append(service)
        }
        if spec.callbackDeps != nil {
            pending.append((service, serial, claimed, path))
        } else if claimed {
            release(service)
        }
        if factoriesRunning == 0 { try runPendingCompletions(from: firstPending) }
        return serial
    }

    private mutating func runPendingCompletions(from first: Int) throws(Failure) {
        while pending.count > first {
            let next = pending.remove(at: first)
            let ownFrame = frames.last?.service == next.service
            if !ownFrame { frames.append((next.service, false, next.origin)) }
            defer { if !ownFrame { frames.removeLast() } }
            for dep in services[next.service].callbackDeps ?? [] {
                let received = try resolve(dep)
                instances[next.serial].callbackDeps.append(received)
            }
            if next.claimed { release(next.service) }
        }
    }

    private mutating func release(_ service: Int) {
        if let index = claims.lastIndex(of: service) { claims.remove(at: index) }
    }

    /// Ends the graph; a failed graph discards its graph-scoped instances and the shared ones whose
    /// callbacks did not all run (those still claimed).
    private mutating func finish(failed: Bool) {
        // (Graph-scoped instances are discarded too, but a new graph never sees them anyway.)
        if failed {
            for service in made where services[service].scope.isShared && claims.contains(service) {
                sharedStore[service] = nil
            }
        }
        graphStore = [:]
        frames = []
        factoriesRunning = 0
        pending = []
        made = []
        claims = []
    }
}

// MARK: - Invariants

/// What happened in the earlier steps of a run.
struct GraphHistory {
    /// The serials of the instances successful requires returned.
    var roots: [Int] = []
    var failed = false
    var released = false
}

extension GraphCase {
    /// Checks what must hold whatever the model says: factories run once per graph, identity per scope,
    /// transient instances are never shared, and statically resolvable roots resolve (also after failures).
    /// Returns the failure of a resolvable root that is the known false cycle, for the caller to record.
    func checkInvariants(
        root: Int,
        outcome: ModelOutcome,
        records: [GraphInstanceRecord],
        start: Int,
        history: GraphHistory
    ) -> String? {
        let made = records[start...]
        for (service, spec) in services.enumerated() where spec.scope.isStored {
            let calls = made.count { $0.service == service }
            #expect(calls <= 1, "S\(service) (\(spec.scope)): \(calls) factory calls in one graph")
            let total = records.count { $0.service == service }
            if spec.scope == .container && !history.failed
                || spec.scope == .weak && !history.failed && !history.released
            {
                #expect(total <= 1, "S\(service) (\(spec.scope)): \(total) factory calls while every require succeeded")
            }
        }

        // A transient instance goes to exactly one requester.
        var references = history.roots
        for record in records { references += record.factoryDeps + record.callbackDeps }
        var counts: [Int: Int] = [:]
        for serial in references where services[records[serial].service].scope == .transient {
            counts[serial, default: 0] += 1
        }
        for (serial, count) in counts where count > 1 {
            Issue.record("transient instance \(serial) of S\(records[serial].service) was handed out \(count) times")
        }

        switch outcome {
        case .success(let serial):
            checkIdentity(root: serial, records: records, start: start)
        case .failure(let reason, let path) where isStaticallyResolvable(root):
            let failure = "S\(root) is registered and acyclic but failed: \(reason) \(path)"
            // The known bug: a transient service counted as "on the path twice" (see the last test).
            if reason == .circularDependency, let last = path.last, services[last].scope == .transient {
                return failure
            }
            Issue.record("\(failure)")
        case .failure:
            break
        }
        return nil
    }

    /// Within the graph of one successful require, every reference to a stored service is the same instance,
    /// and a graph-scoped one was made in this graph.
    private func checkIdentity(root: Int, records: [GraphInstanceRecord], start: Int) {
        var referenced: [Int: Set<Int>] = [records[root].service: [root]]
        var visited: Set<Int> = [root]
        var queue = [root]
        while let serial = queue.popLast() {
            // Instances from earlier graphs (shared ones) are the graph's too, but what they hold is not.
            guard serial >= start else { continue }
            for dep in records[serial].factoryDeps + records[serial].callbackDeps {
                referenced[records[dep].service, default: []].insert(dep)
                if visited.insert(dep).inserted { queue.append(dep) }
            }
        }
        for (service, serials) in referenced {
            let scope = services[service].scope
            guard scope.isStored else { continue }
            #expect(serials.count == 1, "S\(service) (\(scope)) is several instances in one graph: \(serials.sorted())")
            if scope == .graph {
                #expect(serials.allSatisfy { $0 >= start }, "graph-scoped S\(service) reused from an earlier graph")
            }
        }
    }
}
