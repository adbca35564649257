extension Verification.Analysis {
    /// The cycles that cannot be built, found in the graph, and those the engine reported while building
    /// that the graph does not show.
    ///
    /// A cycle cannot be built when every link of it is resolved while an instance is being made (in an
    /// initializer, a factory, or a property wrapper of what a factory makes): no service on it can be made
    /// first. A cycle with an `initCompleted` link is fine as long as one of its services is shared within
    /// the object graph; when all of them are `.transient`, each new instance asks for yet another one.
    /// `Lazy` and `Provider` links never close a cycle.
    func cycleProblems() -> [VerificationReport.Problem] {
        var seen: Set<[Int]> = []
        var problems: [VerificationReport.Problem] = []
        let throughFactories = cycles { _, link in link.kind != .initCompleted && link.access.holdsInstance }
        let throughTransients = cycles { from, link in
            nodes[from].lifetime == .transient && nodes[link.to].lifetime == .transient && link.access.holdsInstance
        }
        for cycle in throughFactories + throughTransients {
            let normal = Self.normalized(cycle)
            if seen.insert(normal).inserted { problems.append(problem(for: normal)) }
        }
        for path in verification.reportedCycles {
            let loop = Self.loop(of: path)
            guard !loop.isEmpty else { continue }
            let indices = loop.compactMap { verification.node(labelled: $0) }
            if indices.count == loop.count {
                let normal = Self.normalized(indices)
                guard seen.insert(normal).inserted else { continue }
            }
            problems.append(
                .init(
                    .unbuildableCycle,
                    service: loop[0],
                    message: "\(loop.joined(separator: ", ")) ask for each other while being made, so none of "
                        + "them can be made first.",
                    path: loop + [loop[0]],
                    hint: "Break one link with Lazy or Provider, or move it into an initCompleted callback of a "
                        + "service that is .graph or .container."
                )
            )
        }
        return problems
    }

    /// One cycle per back edge of a depth-first search over the links `include` accepts. The search keeps its
    /// path in an array rather than recursing: a chain of registrations thousands long must not overflow the stack
    /// of the thread that verifies (the engine stops such a build with `.tooDeep`, the search must get that far).
    private func cycles(following include: (Int, Link) -> Bool) -> [[Int]] {
        var state = [UInt8](repeating: 0, count: nodes.count)  // 0: not seen, 1: on the path, 2: done
        // The nodes being visited, outermost first, each with the index of the next of its links to follow.
        var path: [(node: Int, next: Int)] = []
        var result: [[Int]] = []
        for root in nodes.indices where state[root] == 0 {
            state[root] = 1
            path.append((root, 0))
            while let top = path.last {
                let outgoing = links[top.node]
                guard top.next < outgoing.count else {
                    path.removeLast()
                    state[top.node] = 2
                    continue
                }
                path[path.count - 1].next += 1
                let link = outgoing[top.next]
                guard include(top.node, link) else { continue }
                if state[link.to] == 1, let start = path.lastIndex(where: { $0.node == link.to }) {
                    result.append(path[start...].map(\.node))
                } else if state[link.to] == 0 {
                    state[link.to] = 1
                    path.append((link.to, 0))
                }
            }
        }
        return result
    }

    /// The problem of the cycle `cycle` (normalized, without the closing repeat).
    private func problem(for cycle: [Int]) -> VerificationReport.Problem {
        let names = cycle.map { nodes[$0].label }
        let closing = (from: names[names.count - 1], to: names[0])
        let path = names + [names[0]]
        var factoryLinks = true
        for (position, from) in cycle.enumerated() {
            let to = cycle[(position + 1) % cycle.count]
            factoryLinks = factoryLinks && links[from].contains { $0.to == to && $0.kind != .initCompleted }
        }
        guard factoryLinks else {
            return .init(
                .unbuildableCycle,
                service: names[0],
                message: "\(Self.list(names)) are all .transient and ask for each other (in initCompleted "
                    + "callbacks too): every new instance asks for another one, without end.",
                path: path,
                hint: "Give one of them the .graph scope (the default) or .container, so that the cycle closes on "
                    + "an instance that already exists."
            )
        }
        let message: String
        switch names.count {
        case 1: message = "\(names[0]) needs itself while it is being made."
        case 2: message = "\(names[0]) and \(names[1]) need each other while being made, so neither can be made first."
        default:
            message = "\(Self.list(names)) each need the next one while being made, so none of them can be made first."
        }
        return .init(
            .unbuildableCycle,
            service: names[0],
            message: message,
            path: path,
            hint: "Break one link: let \(closing.from) take Lazy<\(closing.to)> or Provider<\(closing.to)>, or set "
                + "its \(closing.to) in an initCompleted callback instead of its initializer or factory."
        )
    }

    /// `cycle` rotated to start at its smallest node, so that each cycle has one spelling.
    private static func normalized(_ cycle: [Int]) -> [Int] {
        guard let smallest = cycle.indices.min(by: { cycle[$0] < cycle[$1] }) else { return cycle }
        return Array(cycle[smallest...] + cycle[..<smallest])
    }

    /// The cycle at the end of a resolution path: from the earlier occurrence of its last step, without the
    /// repeat (`A -> B -> C -> B` gives `[B, C]`).
    private static func loop(of path: [String]) -> [String] {
        guard let last = path.last, let start = path.dropLast().lastIndex(of: last) else { return [] }
        return Array(path[start..<(path.count - 1)])
    }

    /// "A, B and C".
    static func list(_ names: [String]) -> String {
        guard names.count > 1 else { return names.first ?? "" }
        return names.dropLast().joined(separator: ", ") + " and " + names[names.count - 1]
    }
}

extension DependencyGraph.Edge.Access {
    /// Whether the dependency is resolved when its holder is made (directly or as an optional), rather
    /// than later (`Lazy`) or on each use (`Provider`).
    var holdsInstance: Bool {
        self == .direct || self == .optional
    }
}

extension Verification.Analysis {
    /// The captive dependencies: a service the container keeps (`.container`, or a custom scope) holding one
    /// whose scope means it to live shorter or apart — `.weak`, `.scoped`, or another custom scope — directly or
    /// through `.transient` and `.graph` services it holds; in strict mode also a `.transient` or `.graph` service
    /// it holds directly.
    ///
    /// A `.weak` service is shared for as long as anything uses it, so it may outlive a scope too: one holding a
    /// `.scoped` service is captive, as its resolve refuses it (``ResolutionError/Reason/captiveDependency``).
    ///
    /// A `Provider` dependency holds nothing; a `Lazy` one holds its instance once used, so it counts.
    ///
    /// Each captive service is reported once per holder, with a path resolution fails on where there is one: paths
    /// of `require`s are searched first, then those through an optional `resolve` or a `Lazy`.
    func captiveProblems() -> [VerificationReport.Problem] {
        var problems: [VerificationReport.Problem] = []
        for holder in nodes.indices where nodes[holder].lifetime.keepsInstances || nodes[holder].lifetime == .weak {
            var reported: Set<Int> = []
            for requiredOnly in [true, false] {
                problems += captiveProblems(of: holder, requiredOnly: requiredOnly, reported: &reported)
            }
        }
        return problems
    }

    /// The captive dependencies of `holder` not in `reported`, through required links only when `requiredOnly`;
    /// adds those it finds to `reported`.
    private func captiveProblems(of holder: Int, requiredOnly: Bool, reported: inout Set<Int>)
        -> [VerificationReport.Problem]
    {
        var problems: [VerificationReport.Problem] = []
        let holderLifetime = nodes[holder].lifetime
        let keepsOnlyWhileUsed = holderLifetime == .weak
        var previous: [Int: Int] = [holder: holder]
        var queue = [holder]
        var head = 0
        func report(_ target: Int, strict: Bool) {
            guard reported.insert(target).inserted else { return }
            problems.append(captive(path(to: target, from: holder, previous: previous), strict: strict))
        }
        while head < queue.count {
            let current = queue[head]
            head += 1
            for link in links[current]
            where link.access != .provider && (!requiredOnly || link.access == .direct) && previous[link.to] == nil {
                let target = link.to
                switch nodes[target].lifetime {
                case .container:
                    continue
                case let lifetime where lifetime == holderLifetime:
                    continue
                case .weak, .custom:
                    guard !keepsOnlyWhileUsed else { continue }
                    previous[target] = current
                    report(target, strict: false)
                case .scoped:
                    previous[target] = current
                    report(target, strict: false)
                case .transient, .graph:
                    previous[target] = current
                    queue.append(target)
                    // A collection is made anew for each use and keeps nothing: its elements are what the
                    // holder keeps directly.
                    if verification.strict, !keepsOnlyWhileUsed, !nodes[target].entry.isCollection,
                        current == holder || (nodes[current].entry.isCollection && previous[current] == holder)
                    {
                        report(target, strict: true)
                    }
                }
            }
        }
        return problems
    }

    /// The nodes from `holder` to `target` along the search's `previous` links.
    private func path(to target: Int, from holder: Int, previous: [Int: Int]) -> [Int] {
        var path = [target]
        while path[0] != holder, let before = previous[path[0]] {
            path.insert(before, at: 0)
        }
        return path
    }

    /// The problem of the holder `path[0]` keeping `path.last`.
    private func captive(_ path: [Int], strict: Bool) -> VerificationReport.Problem {
        let holder = nodes[path[0]]
        let target = nodes[path[path.count - 1]]
        let asking = nodes[path[path.count - 2]].label
        let (holderName, targetName) = (holder.label, target.label)
        let (holderScope, targetScope) = ("." + holder.scopeName, "." + target.scopeName)
        let through =
            path.count > 2 ? " (through \(Self.list(path.dropFirst().dropLast().map { nodes[$0].label })))" : ""
        let message: String
        var hint =
            "Make \(targetName) \(holderScope) too, or let \(asking) take Provider<\(targetName)> and ask it "
            + "for an instance when it needs one."
        switch target.lifetime {
        case .weak:
            message =
                "\(holderName) (\(holderScope)) keeps \(targetName) (.weak) alive\(through) for as long as "
                + "\(holderName) lives, but .weak means it should go once nothing else uses it."
        case .transient:
            message =
                "\(holderName) (\(holderScope)) keeps one \(targetName) (.transient) for as long as it lives, "
                + "but .transient means a new instance for each use."
        case .graph:
            message =
                "\(holderName) (\(holderScope)) keeps one \(targetName) (.graph) for as long as it lives, "
                + "but .graph means a new instance for each object graph."
        case .scoped:
            message =
                "\(holderName) (\(holderScope)) keeps the \(targetName) (.scoped) of the scope it was first made "
                + "in\(through), after that scope ends and tears it down."
            hint =
                "Make \(holderName) .scoped or .transient too, or pass it the \(targetName) of the current scope "
                + "when it needs one."
        case .container, .custom:
            message =
                "\(holderName) (\(holderScope)) keeps the \(targetName) (\(targetScope)) it was made "
                + "with\(through): after \(targetScope) is reset, \(holderName) still uses the old one."
        }
        if strict {
            hint += " If keeping one instance is intended, verify without strict."
        }
        return .init(
            .captiveDependency,
            service: holderName,
            message: message,
            path: path.map { nodes[$0].label },
            hint: hint
        )
    }
}
