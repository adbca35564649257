import Weft

// Random containers for `VerificationAgreesWithResolutionTests`: a description of N services (scope, name,
// runtime argument, sync or async factory, parent or child container, dependencies by `require`, optional
// `resolve`, `Lazy` or `Provider`, in the factory or in `initCompleted`), a seeded generator, a shrinker and the
// registration of a description in real containers whose factories record what they ask for.

/// A small seeded generator (SplitMix64): the same seed makes the same case on every machine and run.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Whether an event of the given probability (in percent) happens.
    mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &self) < percent }
}

/// The object scope of a generated service.
enum VerifyScope: Int, CaseIterable, Sendable, CustomStringConvertible {
    case graph, transient, container, weak, scoped

    var objectScope: ObjectScope {
        switch self {
        case .graph: return .graph
        case .transient: return .transient
        case .container: return .container
        case .weak: return .weak
        case .scoped: return .scoped
        }
    }

    var description: String { ".\(objectScope)" }
}

/// One dependency of a generated service: whom it asks for, how, and where.
struct VerifyDependency: Sendable, Equatable, CustomStringConvertible {
    var target: Int
    var access: DependencyGraph.Edge.Access
    var inCallback: Bool

    var description: String {
        let base: String
        switch access {
        case .direct: base = "S\(target)"
        case .optional: base = "S\(target)?"
        case .lazy: base = "Lazy(S\(target))"
        case .provider: base = "Provider(S\(target))"
        }
        return inCallback ? "cb:" + base : base
    }
}

/// One generated service `S<i>`, registered as `VerifyNode` named `s<i>` (S0 without a name).
struct VerifyService: Sendable, Equatable, CustomStringConvertible {
    var isRegistered = true
    var scope = VerifyScope.graph
    var takesArgument = false
    var isAsync = false
    var inParent = false
    var dependencies: [VerifyDependency] = []

    var description: String {
        guard isRegistered else { return "missing" }
        var text = "\(scope)"
        if takesArgument { text += " arg" }
        if isAsync { text += " async" }
        if inParent { text += " parent" }
        return text + " \(dependencies)"
    }
}

/// A generated container: its services, and whether those not `inParent` are registered in a child container.
struct VerifyCase: Sendable, CustomStringConvertible {
    var seed: UInt64
    var services: [VerifyService]
    var usesChild: Bool

    var hasAsyncFactories: Bool { services.contains { $0.isRegistered && $0.isAsync } }

    var description: String {
        let list = services.enumerated().map { "S\($0.offset): \($0.element)" }.joined(separator: "; ")
        return "seed \(seed)\(usesChild ? " (child container)" : ""): [\(list)]"
    }

    static func name(_ service: Int) -> String? { service == 0 ? nil : "s\(service)" }

    /// How paths and graph labels write `S<service>`.
    static func label(_ service: Int) -> String {
        name(service).map { "VerifyNode[\"\($0)\"]" } ?? "VerifyNode"
    }

    /// The service a path or graph label names, or nil.
    func service(labelled label: String) -> Int? {
        services.indices.first { Self.label($0) == label }
    }

    /// 2–10 services; factory dependencies mostly point to later services, so many cases resolve.
    static func generate(seed: UInt64, allowAsync: Bool) -> VerifyCase {
        var rng = SplitMix(state: seed)
        let count = Int.random(in: 2...10, using: &rng)
        let usesChild = rng.chance(30)
        var services: [VerifyService] = []
        for index in 0..<count {
            var service = VerifyService()
            service.isRegistered = !rng.chance(12)
            service.scope = VerifyScope.allCases.randomElement(using: &rng)!
            service.takesArgument = rng.chance(8)
            // A `.transient` registration with arguments that asks for itself is a recursion, which runs until
            // the stack is nearly used up (`tooDeep`): slow, so left to the hand-written tests.
            if service.takesArgument && service.scope == .transient { service.scope = .graph }
            service.isAsync = allowAsync && rng.chance(25)
            service.inParent = usesChild && rng.chance(40)
            for _ in 0..<Int.random(in: 0...3, using: &rng) {
                let later = count - index - 1
                let target =
                    later > 0 && rng.chance(75)
                    ? index + 1 + Int.random(in: 0..<later, using: &rng) : Int.random(in: 0..<count, using: &rng)
                let roll = Int.random(in: 0..<100, using: &rng)
                let access: DependencyGraph.Edge.Access =
                    roll < 60 ? .direct : roll < 75 ? .optional : roll < 88 ? .lazy : .provider
                service.dependencies.append(
                    VerifyDependency(target: target, access: access, inCallback: rng.chance(20)))
            }
            services.append(service)
        }
        for index in services.indices where !services[index].isRegistered {
            services[index] = VerifyService(isRegistered: false)
        }
        // `Lazy` and `Provider` of a service with runtime arguments are not generated.
        for index in services.indices {
            for dep in services[index].dependencies.indices
            where services[services[index].dependencies[dep].target].takesArgument {
                if services[index].dependencies[dep].access != .optional {
                    services[index].dependencies[dep].access = .direct
                }
            }
        }
        return VerifyCase(seed: seed, services: services, usesChild: usesChild)
    }

    /// Smaller cases, simplest first: a service removed, a dependency removed, a flag or scope made plainer.
    func shrinkCandidates() -> [VerifyCase] {
        var candidates: [VerifyCase] = []
        for removed in services.indices.reversed() where services.count > 1 {
            var smaller = self
            smaller.services.remove(at: removed)
            for index in smaller.services.indices {
                smaller.services[index].dependencies = smaller.services[index].dependencies.compactMap { dep in
                    guard dep.target != removed else { return nil }
                    var moved = dep
                    if dep.target > removed { moved.target -= 1 }
                    return moved
                }
            }
            candidates.append(smaller)
        }
        for index in services.indices {
            for dep in services[index].dependencies.indices {
                var smaller = self
                smaller.services[index].dependencies.remove(at: dep)
                candidates.append(smaller)
            }
        }
        if usesChild {
            var smaller = self
            smaller.usesChild = false
            for index in smaller.services.indices { smaller.services[index].inParent = false }
            candidates.append(smaller)
        }
        for index in services.indices {
            var service = services[index]
            for simpler in [\VerifyService.isAsync, \.inParent] where service[keyPath: simpler] {
                var smaller = self
                smaller.services[index][keyPath: simpler] = false
                candidates.append(smaller)
            }
            if service.scope != .graph {
                service.scope = .graph
                var smaller = self
                smaller.services[index] = service
                candidates.append(smaller)
            }
        }
        return candidates
    }
}
