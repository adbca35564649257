/// One run of ``Container/verificationReport(strict:)``: collects the registrations, their declared and
/// observed dependencies and what failed while building, then hands them to the analysis
/// (`Verification+Analysis.swift`), which turns them into problems.
final class Verification {
    let container: Container
    let strict: Bool
    /// The registrations visible from the container, one per registration (forwarded keys join their
    /// registration's node), sorted by label: the order of builds, and of everything reported.
    private(set) var nodes: [VerifiedNode] = []
    private var nodeOfKey: [ServiceKey: Int] = [:]
    private var nodeOfLabel: [String: Int] = [:]
    /// The dependencies found, before merging.
    private(set) var found: [GraphRecorder.Edge] = []
    /// The missing dependencies found, in the order found.
    private(set) var missing: [MissingFinding] = []
    private var missingSeen: Set<MissingFinding.ID> = []
    /// The requests that failed for a missing dependency (a kind of nil: asked for some way, not known which).
    private(set) var missedRequests: Set<MissedRequest> = []
    /// The registrations that failed to build, with the error, in the order found.
    private(set) var failures: [(node: Int, error: any Error)] = []
    /// The cycles the engine reported while building, as paths of labels (the graph usually has them too).
    private(set) var reportedCycles: [[String]] = []
    private(set) var unchecked: [VerificationReport.UncheckedRegistration] = []
    /// The registrations whose instances adopt ``Teardown`` or ``AsyncTeardown`` (the protocol's name) but
    /// whose scope never tears them down.
    var neverTornDown: [(node: Int, adopted: String)] = []
    /// The teardowns that threw when the copy ended (instances its builds made are torn down afterwards).
    private(set) var teardownFailures: [TeardownError.Failure] = []
    /// Whether the builds run in the async engine (``AsyncResolver/verificationReport(strict:)``).
    let asynchronous: Bool

    init(container: Container, strict: Bool, asynchronous: Bool = false) {
        self.container = container
        self.strict = strict
        self.asynchronous = asynchronous
        var groups: [ObjectIdentifier: (entry: _ServiceEntryBase, keys: [ServiceKey])] = [:]
        for (key, entry) in container.allRegistrations() {
            groups[ObjectIdentifier(entry), default: (entry, [])].keys.append(key)
        }
        // Labels and identifiers are made once each: they describe types, which costs.
        nodes = groups.values.map { VerifiedNode(entry: $0.entry, keys: $0.keys) }
            .map { (node: $0, order: ($0.label, $0.id)) }
            .sorted { $0.order < $1.order }
            .map(\.node)
        for (index, node) in nodes.enumerated() {
            for key in [node.key] + node.forwarded { nodeOfKey[key] = index }
            if nodeOfLabel[node.label] == nil { nodeOfLabel[node.label] = index }
        }
    }

    /// Collects everything, building synchronously, analyses it, and makes the report.
    func run() -> VerificationReport {
        addDeclaredDependencies()
        buildClosureRegistrations()
        return report()
    }

    /// Collects everything, building with the async engine, analyses it, and makes the report.
    func runAsync() async -> VerificationReport {
        addDeclaredDependencies()
        await buildClosureRegistrationsAsync()
        return report()
    }

    private func report() -> VerificationReport {
        for index in nodes.indices { noteTeardown(of: index, instance: nil) }
        let analysis = Analysis(self, edges: mergedEdges())
        return VerificationReport(
            problems: analysis.problems(),
            unchecked: unchecked.sorted { $0.service < $1.service },
            checkedCount: nodes.count - unchecked.count,
            strict: strict,
            graph: analysis.graph()
        )
    }

    /// The node of the registration for `key`, if there is one.
    func node(for key: ServiceKey) -> Int? {
        nodeOfKey[key]
    }

    /// The first node (in sorted order) that resolution paths write as `label`.
    func node(labelled label: String) -> Int? {
        nodeOfLabel[label]
    }

    // MARK: Autoregistered services

    /// Adds the dependencies autoregistered services declare, and the missing ones among them.
    private func addDeclaredDependencies() {
        for index in nodes.indices {
            guard let declared = nodes[index].declared else { continue }
            for dependency in declared {
                if let target = nodeOfKey[dependency.parameterKey] {
                    found.append(.init(from: index, to: .node(target), kind: .initializer, access: .direct))
                } else if dependency.access != .direct, let target = nodeOfKey[dependency.serviceKey] {
                    found.append(.init(from: index, to: .node(target), kind: .initializer, access: dependency.access))
                } else if dependency.serviceType != GraphIdentifier.self {
                    let key = dependency.serviceKey
                    found.append(.init(from: index, to: .missing(key), kind: .initializer, access: dependency.access))
                    if dependency.access != .optional {
                        let wrapper = dependency.access == .direct ? [] : [dependency.parameterKey.pathComponent]
                        addMissing(
                            needer: index, key: key, request: wrapper + [key.pathComponent],
                            suggestions: container.suggestions(for: key))
                    }
                }
            }
        }
    }

    // MARK: Closure registrations

    /// The throwaway copy closure registrations are built in, and where their builds are recorded.
    private struct BuildSite {
        /// The copy of the verified container. Each registration is built in a scope of its own, as one
        /// request would be, so that `.scoped` services can be made and are torn down after each build.
        let copy: Container
        /// The containers of the copy, innermost first, ended in that order after the builds.
        let ending: [Container]
        let findings: GraphRecorder.Findings
        /// Whether property wrappers resolve from the verified container (it is ``Container/shared``): then
        /// they must resolve from the copy too.
        let sharesProperties: Bool
    }

    private func makeBuildSite() -> BuildSite {
        let copy = container.makeVerificationCopy()
        var nodeOfEntry: [ObjectIdentifier: Int] = [:]
        for (index, node) in nodes.enumerated() {
            if let copied = copy.entries[ObjectIdentifier(node.entry)] { nodeOfEntry[ObjectIdentifier(copied)] = index }
        }
        return BuildSite(
            copy: copy.container,
            ending: copy.chain.reversed(),
            findings: GraphRecorder.Findings(nodeOfEntry: nodeOfEntry, containers: copy.containers),
            sharesProperties: Container.shared === container
        )
    }

    /// The closure registrations to build: those without runtime arguments. The others are listed as not
    /// checked. An autoregistered service is built only when decorated: its decorators' dependencies are found so.
    private func buildableNodes() -> [Int] {
        nodes.indices.filter { index in
            let key = nodes[index].key
            guard nodes[index].declared == nil || nodes[index].entry.decoratorCount > 0 else { return false }
            guard key.argumentsType != noArguments else { return true }
            let arguments = key.argumentTypeNames.joined(separator: ", ")
            unchecked.append(
                .init(
                    service: key.requestDescription,
                    reason: "its factory takes runtime arguments (\(arguments)), which verification cannot make up"
                )
            )
            return false
        }
    }

    /// Builds every closure registration without runtime arguments in a throwaway copy of the container,
    /// recording what each resolves and what fails; then ends the copy.
    private func buildClosureRegistrations() {
        let site = makeBuildSite()
        let recorder = GraphRecorder(findings: site.findings)
        for index in buildableNodes() {
            // Settled within an earlier build: every edge of its factory is recorded, and its own build would
            // complete, or fail alike (see `GraphRecorder.Findings.settleFailures(like:)`).
            if site.findings.isSettled(node: index) { continue }
            site.findings.lastMissing = nil
            let key = nodes[index].key
            let scope = site.copy.makeScope()
            let outcome = Result {
                try recorder.record {
                    guard site.sharesProperties else { return try build(key, in: scope) }
                    return try Container.withShared(scope) { try build(key, in: scope) }
                }
            }
            adoptLost(note(outcome, building: index, findings: site.findings), of: index, into: scope)
            if case .failure(let error) = outcome {
                site.findings.settleFailures(like: error as? ResolutionError)
            } else {
                site.findings.settleFailures(like: nil)
            }
            teardownFailures += scope.endSynchronously()
        }
        for container in site.ending { teardownFailures += container.endSynchronously() }
        finishBuilds(site)
    }

    /// Builds every closure registration without runtime arguments, as ``buildClosureRegistrations()`` does,
    /// with the async engine: async factories run, and synchronous ones run as they would from async code.
    private func buildClosureRegistrationsAsync() async {
        let site = makeBuildSite()
        for index in buildableNodes() {
            site.findings.lastMissing = nil
            let key = nodes[index].key
            let scope = site.copy.makeScope()
            let outcome: Result<Any, any Error>
            do {
                let made =
                    site.sharesProperties
                    ? try await Container.withShared(scope) { try await buildAsync(key, in: scope, site: site) }
                    : try await buildAsync(key, in: scope, site: site)
                outcome = .success(made.value)
            } catch {
                outcome = .failure(error)
            }
            adoptLost(note(outcome, building: index, findings: site.findings), of: index, into: scope)
            await end(scope)
        }
        for container in site.ending { await end(container) }
        finishBuilds(site)
    }

    /// Ends a container of the copy, keeping the teardowns that threw.
    private func end(_ container: Container) async {
        do {
            try await container.end()
        } catch {
            // `end()` throws only a `TeardownError`.
            teardownFailures += (error as? TeardownError)?.failures ?? []
        }
    }

    /// Takes what the builds recorded.
    private func finishBuilds(_ site: BuildSite) {
        if asynchronous {
            // Synchronous code that resolved an async factory's service got one made before (a `.container`
            // instance an earlier build made); it would fail where none was made yet.
            for use in site.findings.synchronousUses where use.asker != use.needed {
                let what = use.inFactory ? "synchronous factory" : "initCompleted callback"
                let reason = synchronousUseReason(what, nodes[use.asker].label, nodes[use.needed].label)
                addUnchecked(use.asker, reason: reason)
            }
        }
        // An autoregistered service's initializer edges are the ones it declares; what else its build resolved
        // while being made, its decorators did.
        found += site.findings.edges.filter { edge in
            guard edge.kind == .initializer, let declared = nodes[edge.from].declared else { return true }
            return !declared.contains { target(of: $0) == edge.to }
        }
    }

    /// What an autoregistered service's declared dependency resolves to, as ``addDeclaredDependencies()`` draws it.
    private func target(of dependency: DeclaredDependency) -> GraphRecorder.Target {
        if let node = nodeOfKey[dependency.parameterKey] { return .node(node) }
        if dependency.access != .direct, let node = nodeOfKey[dependency.serviceKey] { return .node(node) }
        return .missing(dependency.serviceKey)
    }

    /// Resolves `key` in `container`, as `require` would.
    private func build(_ key: ServiceKey, in container: Container) throws -> Any {
        func make<Service>(_: Service.Type) throws -> Any {
            try makeWithoutArguments(container, Service.self, name: key.name, option: key.option)
        }
        return try make(key.serviceType)
    }

    /// Resolves `key` in `scope`, as `container.async.require` would, recording the edges between
    /// async factories too.
    private func buildAsync(_ key: ServiceKey, in scope: Container, site: BuildSite) async throws -> Made {
        func make<Service>(_: Service.Type) async throws -> Made {
            let context = AsyncContext.root(AsyncGraph(recording: site.findings), container: scope)
            defer { context.endResolution() }
            let made = try await scope.makeAsync(key: key, context: context, arguments: ()) {
                try scope.make(Service.self, name: key.name, option: key.option)
            }
            try scope.completeDeferred(root: context)
            return made
        }
        return try await make(key.serviceType)
    }

    /// Sorts the outcome of building the registration at `index` into the findings.
    ///
    /// - Returns: The instance built, when its scope never tears it down (see
    ///   ``noteTeardown(of:instance:)``).
    private func note(
        _ outcome: Result<Any, any Error>,
        building index: Int,
        findings: GraphRecorder.Findings
    ) -> Any? {
        switch outcome {
        case .success(let instance):
            return noteTeardown(of: index, instance: instance) ? instance : nil
        case .failure(let error as ResolutionError):
            record(error, building: index, findings: findings)
        case .failure(let error):
            addFailure(node: index, error: error)
        }
        return nil
    }

    /// Sorts a failed build's error into the findings.
    private func record(_ error: ResolutionError, building index: Int, findings: GraphRecorder.Findings) {
        switch error.reason {
        case .missingRegistration:
            guard let key = error.key else { return addFailure(node: index, error: error) }
            let wanted = key.unwrapped
            var needer = index
            var last = findings.lastMissing
            if let known = last, known.key == key || known.key == wanted {
                needer = known.needer
            } else if error.path.count >= 2, let asking = nodeOfLabel[error.path[error.path.count - 2]] {
                needer = asking
                last = nil
            } else {
                last = nil
            }
            missedRequests.insert(MissedRequest(needer: needer, key: wanted, kind: last?.kind, access: last?.access))
            // The error's path past the needer: the wrapper (`Lazy<T>`, `Provider<T>`) asked for, then the service.
            let request = error.path.lastIndex(of: nodes[needer].label).map { error.path[($0 + 1)...] } ?? []
            addMissing(
                needer: needer, key: wanted,
                request: request.last == wanted.pathComponent ? Array(request) : [wanted.pathComponent],
                suggestions: error.suggestions)
        case .circularDependency:
            reportedCycles.append(error.path)
        case .notOnMainActor:
            let own = error.key.flatMap { nodeOfKey[$0] } == index
            let reason =
                own
                ? "its factory is @MainActor, and verification ran off the main actor"
                : "it needs \(error.path.last ?? error.serviceType), whose factory is @MainActor, and verification "
                    + "ran off the main actor"
            addUnchecked(index, reason: reason)
        case .requiresAsync:
            addUnchecked(index, reason: requiresAsyncReason(error, index))
        case .outsideScope, .scopeEnded, .captiveDependency:
            // The dependency edge is recorded; the captive-dependency check reports it.
            break
        case .factoryFailed, .initCompletedFailed, .typeMismatch, .tooDeep:
            addFailure(node: error.key.flatMap { nodeOfKey[$0] } ?? index, error: error)
        }
    }

    /// Why building the registration at `index` stopped at an async factory.
    private func requiresAsyncReason(_ error: ResolutionError, _ index: Int) -> String {
        let needed = error.path.last ?? error.serviceType
        guard asynchronous else {
            let own = error.key.flatMap { nodeOfKey[$0] } == index
            let what = own ? "its factory is async" : "it needs \(needed), whose factory is async"
            return what + ", and only `try await container.async.verify()` builds async factories"
        }
        // Only synchronous code stops at an async factory: the registration before it on the path.
        let asker = error.path.count >= 2 ? error.path[error.path.count - 2] : nodes[index].label
        return synchronousUseReason("synchronous factory", asker, needed)
    }

    /// Why a registration whose synchronous `code` resolves `needed`, whose factory is async, is not checked.
    private func synchronousUseReason(_ code: String, _ asker: String, _ needed: String) -> String {
        "the \(code) of \(asker) needs \(needed), whose factory is async: that works only while an instance of "
            + "\(needed) made before is kept (make the factory of \(asker) async, or resolve \(needed) first)"
    }

    /// Lists the registration at `index` as not checked, once.
    private func addUnchecked(_ index: Int, reason: String) {
        let service = nodes[index].key.requestDescription
        guard !unchecked.contains(where: { $0.service == service }) else { return }
        unchecked.append(.init(service: service, reason: reason))
    }

    private func addMissing(needer: Int, key: ServiceKey, request: [String], suggestions: [String]) {
        let finding = MissingFinding(needer: needer, key: key, request: request, suggestions: suggestions)
        if missingSeen.insert(finding.id).inserted { missing.append(finding) }
    }

    private func addFailure(node: Int, error: any Error) {
        guard !failures.contains(where: { $0.node == node }) else { return }
        failures.append((node, error))
    }
}

/// Calls the pack-taking `make` with an empty pack (a pack parameter cannot be left out by name).
private func makeWithoutArguments<Service, each Argument>(
    _ container: Container,
    _ serviceType: Service.Type,
    name: String?,
    option: (any ServiceKeyOption)?,
    _ arguments: repeat each Argument
) throws -> Service {
    try container.make(serviceType, name: name, option: option, arguments: repeat each arguments)
}
