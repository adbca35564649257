import Testing
import Weft

/// What resolving each registered service of a ``VerifyCase`` did, each in a fresh container and a scope of
/// its own (as verification builds each registration), and what its factories and callbacks asked for.
struct ResolutionRun {
    /// The error resolving `S<i>` threw, or nil when it resolved; registered services only.
    var outcomes: [Int: ResolutionError?] = [:]
    /// What resolving `S<i>` asked for.
    var edgesByRoot: [Int: Set<RecordedEdge>] = [:]

    var edges: Set<RecordedEdge> { edgesByRoot.values.reduce(into: []) { $0.formUnion($1) } }
}

extension VerifyCase {
    func resolveEach() -> ResolutionRun {
        var run = ResolutionRun()
        for (index, service) in services.enumerated() where service.isRegistered {
            let log = DependencyLog()
            defer { run.edgesByRoot[index] = log.edges }
            let scope = makeContainer(log: log).makeScope()
            do {
                if service.takesArgument {
                    _ = try scope.require(VerifyNode.self, name: Self.name(index), argument: 7)
                } else {
                    _ = try scope.require(VerifyNode.self, name: Self.name(index))
                }
                run.outcomes[index] = .some(nil)
            } catch {
                run.outcomes[index] = error as? ResolutionError
            }
        }
        return run
    }

    func resolveEachAsync() async -> ResolutionRun {
        var run = ResolutionRun()
        for (index, service) in services.enumerated() where service.isRegistered {
            let log = DependencyLog()
            defer { run.edgesByRoot[index] = log.edges }
            let scope = makeContainer(log: log).makeScope()
            do {
                if service.takesArgument {
                    _ = try await scope.async.require(VerifyNode.self, name: Self.name(index), arguments: 7)
                } else {
                    _ = try await scope.async.require(VerifyNode.self, name: Self.name(index))
                }
                run.outcomes[index] = .some(nil)
            } catch {
                run.outcomes[index] = error as? ResolutionError
            }
        }
        return run
    }

    /// The problem kind a resolution failure is reported as, if any.
    static func kind(of reason: ResolutionError.Reason) -> VerificationReport.Problem.Kind? {
        switch reason {
        case .missingRegistration: return .missingRegistration
        case .circularDependency: return .unbuildableCycle
        case .captiveDependency: return .captiveDependency
        case .factoryFailed, .initCompletedFailed, .typeMismatch, .tooDeep: return .buildFailed
        default: return nil
        }
    }

    /// What identifies one failure whatever path led to it: the loop of a cycle (from the step the path closes
    /// on, the last one of that service before the end: a `.transient` service may be on the path more than
    /// once before its loop closes), else the failing service.
    static func failureKey(_ path: [String], kind: VerificationReport.Problem.Kind?) -> Set<String> {
        guard let last = path.last else { return [] }
        guard kind == .unbuildableCycle else { return [last] }
        guard let first = path.dropLast().lastIndex(of: last) else { return [last] }
        return Set(path[first...])
    }

    /// The registrations the report lists as not checked.
    func unchecked(in report: VerificationReport) -> Set<Int> {
        Set(
            services.indices.filter { index in
                let written = Self.name(index).map { "VerifyNode named \"\($0)\"" } ?? "VerifyNode"
                return report.unchecked.contains { $0.service == written || $0.service.hasPrefix(written + " with ") }
            })
    }

    /// Where on a problem's path resolution meets it: the first service resolving which fails with it, or nil
    /// when by the docs no resolve fails with it. Exceptions (VerifyingYourContainer.md):
    /// - a `.weak` service kept by a shared one ("a `.weak` one (kept alive for good)"; only a `.scoped` one
    ///   makes "resolving it fail with captiveDependency");
    /// - a captive dependency held through `Lazy` or an optional `resolve` ("is reported too"): the holder's
    ///   resolve does not reach it, or swallows the failure;
    /// - a link asked for with an optional `resolve` ("A problem is reported even where the factory that meets
    ///   it asks with an optional `r.resolve`"), or through `Lazy` or `Provider` ("make the instance on first
    ///   use, or anew on each use"): resolution starts after it;
    /// - a path that starts at a service verification could not check ("A path starts at a service that nothing
    ///   else depends on"): resolution starts at the first checked one, and meets no captive dependency, which
    ///   only its holder at the start keeps.
    /// A captive dependency is met by resolving its holder, at the start of the path, or by nothing.
    func resolutionStart(of problem: VerificationReport.Problem, unchecked: Set<Int>, run: ResolutionRun) -> Int? {
        let path = problem.path.map(service(labelled:))
        // A cycle closes through factories (a callback closes one only between `.transient` services, when no
        // factory of the link requires the next one).
        let callbacksClose = path.allSatisfy { $0.map { services[$0].scope == .transient } == true }
        let links = zip(path, path.dropFirst()).map { from, to -> [VerifyDependency] in
            guard let from, let to else { return [] }
            let all = services[from].dependencies.filter { $0.target == to }
            let factory = all.filter { !$0.inCallback }
            guard problem.kind == .unbuildableCycle, !factory.isEmpty else { return all }
            return callbacksClose && !factory.contains { $0.access == .direct } ? all : factory
        }
        // A link resolution does not fail on: an optional `resolve` returns nil, `Lazy` and `Provider` make the
        // instance later.
        let deferred = links.map { link in !link.isEmpty && !link.contains { $0.access == .direct } }
        if problem.kind == .captiveDependency {
            if let captive = path.last ?? nil, services[captive].scope == .weak { return nil }
            guard let holder = path[0], run.outcomes[holder] != nil, !unchecked.contains(holder) else { return nil }
            // The holder's own request is deferred, so resolving it does not reach the captive; unless an optional
            // `resolve` in a factory made an instance whose callback on the path meets it, after the factory
            // returned; or verification drew an `r.resolve` of a registered service as a requirement (a known
            // limit, see `CaptiveDependencyThroughHeldServicesTests`) and the holder fails with the captive anyway.
            let swallowed = deferred.indices.contains { index in
                deferred[index]
                    && !(links[index].allSatisfy { $0.access == .optional && !$0.inCallback }
                        && links[(index + 1)...].contains { !$0.isEmpty && $0.allSatisfy(\.inCallback) })
            }
            let failsAnyway =
                run.outcomes[holder]??.reason == .captiveDependency
                && run.outcomes[holder]??.path.last == problem.path.last
            return swallowed && !failsAnyway ? nil : 0
        }
        // Whichever service of a cycle is resolved first, the optional `resolve` in the loop returns nil.
        if problem.kind == .unbuildableCycle, deferred.contains(true) { return nil }
        let afterOptional = deferred.lastIndex(of: true).map { $0 + 1 } ?? 0
        guard
            let start = path.indices.first(where: { index in
                index >= afterOptional && path[index].map { run.outcomes[$0] != nil && !unchecked.contains($0) } == true
            })
        else { return nil }
        return start > 0 && start == path.count - 1 ? nil : start
    }

    /// Every reported problem is the failure resolving the service ``resolutionStart(of:unchecked:run:)`` finds
    /// meets, unless that resolve meets another reported problem first (one resolve fails with one error). A
    /// recursion with arguments that never ends (CircularDependencies.md: "A recursion that never ends
    /// stops with tooDeep") is reported with the path to its first step.
    func reportedProblemsThatResolutionDoesNotMeet(_ report: VerificationReport, _ run: ResolutionRun) -> [String] {
        let unchecked = unchecked(in: report)
        return report.problems.compactMap { problem in
            guard let start = resolutionStart(of: problem, unchecked: unchecked, run: run),
                let root = service(labelled: problem.path[start]), let outcome = run.outcomes[root]
            else { return nil }
            guard let error = outcome else {
                return "reported, but S\(root) resolves: \(problem.summary)"
            }
            let path = Array(problem.path[start...])
            let samePath = error.reason == .tooDeep ? error.path.starts(with: path) : error.path == path
            let masked = report.problems.contains { other in
                other.kind == Self.kind(of: error.reason)
                    && Self.failureKey(other.path, kind: other.kind) == Self.failureKey(error.path, kind: other.kind)
            }
            if Self.kind(of: error.reason) != problem.kind || !samePath, !masked {
                return "reported \(problem.summary), but resolving S\(root) fails with \(error.summary)"
            }
            return nil
        }
    }

    /// Every registered, checked service that fails to resolve has its failure in the report.
    func resolutionFailuresNotReported(_ report: VerificationReport, _ run: ResolutionRun) -> [String] {
        let unchecked = unchecked(in: report)
        return run.outcomes.sorted { $0.key < $1.key }.compactMap { root, outcome in
            guard let error = outcome, !unchecked.contains(root) else { return nil }
            // A synchronous factory that needs an async one is listed as not checked, and so are those that need it.
            if error.reason == .requiresAsync,
                error.path.contains(where: { service(labelled: $0).map(unchecked.contains) == true })
            {
                return nil
            }
            let reported = report.problems.contains { problem in
                problem.kind == Self.kind(of: error.reason)
                    && Self.failureKey(problem.path, kind: problem.kind)
                        == Self.failureKey(error.path, kind: problem.kind)
            }
            return reported ? nil : "resolving S\(root) fails with \(error.summary), not reported"
        }
    }

    /// The graph's edges in the case's terms; an edge between nodes that are not services is kept as a failure.
    func edges(of graph: DependencyGraph) -> (edges: Set<RecordedEdge>, unknown: [String]) {
        var edges: Set<RecordedEdge> = []
        var unknown: [String] = []
        for edge in graph.edges {
            guard let from = graph.node(id: edge.from).flatMap({ service(labelled: $0.label) }),
                let to = graph.node(id: edge.to).flatMap({ service(labelled: $0.label) })
            else {
                unknown.append("edge between unknown nodes \(edge)")
                continue
            }
            edges.insert(RecordedEdge(from: from, to: to, kind: edge.kind, access: edge.access))
        }
        return (edges, unknown)
    }

    /// The edges resolution asked for as the graph draws them: one per source, target and kind, with the
    /// strongest access; an optional `resolve` of a registered service is drawn as a direct dependency (the
    /// graph sees the request, not what the factory does with a failure).
    func drawn(_ asked: Set<RecordedEdge>) -> Set<RecordedEdge> {
        var strongest: [RecordedEdge: RecordedEdge] = [:]
        for var edge in asked {
            if edge.access == .optional, services[edge.to].isRegistered { edge.access = .direct }
            var slot = edge
            slot.access = .direct
            if let existing = strongest[slot], rank(existing.access) <= rank(edge.access) { continue }
            strongest[slot] = edge
        }
        return Set(strongest.values)
    }

    private func rank(_ access: DependencyGraph.Edge.Access) -> Int {
        DependencyGraph.Edge.Access.allCases.firstIndex(of: access) ?? 0
    }

    /// The exported edges from each service are those resolution asked for; from a service whose own
    /// resolution failed, resolution may have stopped before asking for all of them; from one with runtime
    /// arguments, verification knows none.
    func graphEdgesResolutionDidNotAskFor(
        _ graph: DependencyGraph, _ run: ResolutionRun, unchecked: Set<Int>
    ) -> [String] {
        let exported = edges(of: graph)
        let asked = drawn(run.edges)
        // Only builds of checked registrations are known to verification.
        let askedByChecked = drawn(
            run.edgesByRoot.filter { !unchecked.contains($0.key) }.values.reduce(into: []) { $0.formUnion($1) })
        let extra = exported.edges.subtracting(asked).filter {
            if case .some(.none) = run.outcomes[$0.from] { true } else { false }
        }
        // VerifyingYourContainer.md: "A closure registration that needs runtime arguments is not built".
        let absent = askedByChecked.subtracting(exported.edges).filter { !services[$0.from].takesArgument }
        return exported.unknown + extra.map { "exported, never asked for: \($0)" }.sorted()
            + absent.map { "asked for, not exported: \($0)" }.sorted()
    }
}

extension VerificationReport.Problem {
    var summary: String { "[\(id)] \(pathDescription)" }
}

extension ResolutionError {
    var summary: String { "\(reason) at \(path.prefix(8).joined(separator: " -> "))\(path.count > 8 ? " ..." : "")" }
}

/// What a finding says without its services, so that shrinking keeps to one kind of failure.
private func kindOfFinding(_ finding: String) -> String {
    String(finding.filter { !$0.isNumber }.prefix(60))
}

/// Runs `property` on the cases of `seeds`; for each of the first failing cases (at most `report`), shrinks it
/// and records an issue with its seed, the shrunk case and what failed for it.
func checkVerifyCases(
    seeds: Range<UInt64>,
    allowAsync: Bool,
    report: Int = 2,
    sourceLocation: SourceLocation = #_sourceLocation,
    property: (VerifyCase) async -> [String]
) async {
    var reported = 0
    for seed in seeds where reported < report {
        var failing = VerifyCase.generate(seed: seed, allowAsync: allowAsync)
        var failures = await property(failing)
        guard !failures.isEmpty else { continue }
        reported += 1
        let original = failures
        var shrunk = true
        var steps = 0
        while shrunk && steps < 300 {
            shrunk = false
            for candidate in failing.shrinkCandidates() {
                steps += 1
                let candidateFailures = await property(candidate)
                if candidateFailures.contains(where: { kindOfFinding($0) == kindOfFinding(original[0]) }) {
                    failing = candidate
                    failures = candidateFailures
                    shrunk = true
                    break
                }
            }
        }
        Issue.record(
            """
            Seed \(seed) fails (\(original.count) findings, first: \(original[0])).
            Shrunk: \(failing)
            \(failures.joined(separator: "\n"))
            """,
            sourceLocation: sourceLocation)
    }
}
