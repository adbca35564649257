extension Verification {
    /// Turns the findings of a verification and its merged edges into problems and the public graph: it finds
    /// the cycles that cannot be built and the captive dependencies, and gives each problem its path.
    struct Analysis {
        /// An edge to a registration, as the graph searches walk it.
        struct Link {
            let to: Int
            let kind: DependencyGraph.Edge.Kind
            let access: DependencyGraph.Edge.Access
        }

        let verification: Verification
        let nodes: [VerifiedNode]
        let edges: [GraphRecorder.Edge]
        /// The links leaving each node.
        let links: [[Link]]
        /// The nodes with a link to each node (self-links left out).
        let incoming: [[Int]]

        init(_ verification: Verification, edges: [GraphRecorder.Edge]) {
            self.verification = verification
            self.nodes = verification.nodes
            self.edges = edges
            var links = [[Link]](repeating: [], count: nodes.count)
            var incoming = [[Int]](repeating: [], count: nodes.count)
            for edge in edges {
                guard case .node(let to) = edge.to else { continue }
                links[edge.from].append(Link(to: to, kind: edge.kind, access: edge.access))
                if to != edge.from, !incoming[to].contains(edge.from) { incoming[to].append(edge.from) }
            }
            self.links = links
            self.incoming = incoming.map { $0.sorted() }
        }

        /// Every problem, by kind, then by path.
        func problems() -> [VerificationReport.Problem] {
            let built = missingProblems() + cycleProblems() + captiveProblems() + failureProblems()
            let all = built + teardownFailureProblems() + teardownProblems()
            return all.sorted {
                (Self.rank($0.kind), $0.pathDescription, $0.message) < (
                    Self.rank($1.kind), $1.pathDescription, $1.message
                )
            }
        }

        private static func rank(_ kind: VerificationReport.Problem.Kind) -> Int {
            VerificationReport.Problem.Kind.allCases.firstIndex(of: kind) ?? 0
        }

        /// The public graph: the registrations, the missing services asked for, and the merged edges.
        func graph() -> DependencyGraph {
            var graphNodes = nodes.map { node in
                DependencyGraph.Node(
                    key: node.key,
                    scope: node.scopeName,
                    registration: node.declared == nil ? .factory : .autoregistered,
                    forwarded: node.forwarded,
                    isCollection: node.entry.isCollection,
                    decoratorCount: node.entry.decoratorCount
                )
            }
            var missingIDs: Set<String> = []
            var graphEdges: [DependencyGraph.Edge] = []
            for edge in edges {
                let to: String
                switch edge.to {
                case .node(let index):
                    to = graphNodes[index].id
                case .missing(let key):
                    let node = DependencyGraph.Node(key: key, scope: nil, registration: .missing)
                    if missingIDs.insert(node.id).inserted { graphNodes.append(node) }
                    to = node.id
                }
                graphEdges.append(.init(from: graphNodes[edge.from].id, to: to, kind: edge.kind, access: edge.access))
            }
            return DependencyGraph(nodes: graphNodes, edges: graphEdges)
        }

        // MARK: Paths

        /// The nodes from one that nothing depends on down to `node` (a shortest such path), or just `node`
        /// when every node above it is on a cycle.
        func rootPath(to node: Int) -> [Int] {
            var next: [Int: Int] = [node: node]
            var queue = [node]
            var head = 0
            while head < queue.count {
                let current = queue[head]
                head += 1
                if incoming[current].isEmpty {
                    var path = [current]
                    while path[path.count - 1] != node { path.append(next[path[path.count - 1]] ?? node) }
                    return path
                }
                for dependent in incoming[current] where next[dependent] == nil {
                    next[dependent] = current
                    queue.append(dependent)
                }
            }
            return [node]
        }

        private func labels(_ path: [Int]) -> [String] {
            path.map { nodes[$0].label }
        }

        // MARK: Missing registrations

        private func missingProblems() -> [VerificationReport.Problem] {
            verification.missing.map { finding in
                let needer = nodes[finding.needer].label
                let wanted = finding.key.pathComponent
                var details: [String] = []
                if !finding.suggestions.isEmpty {
                    details.append("registered instead: " + finding.suggestions.joined(separator: "; "))
                }
                return VerificationReport.Problem(
                    .missingRegistration,
                    service: wanted,
                    message: "\(needer) needs \(finding.key.requestDescription), which is not registered.",
                    path: labels(rootPath(to: finding.needer)) + finding.request,
                    hint: "Register \(wanted) in this container or a parent. If \(needer) can do without it, take it "
                        + "as an optional (\(Self.optionalSpelling(of: finding.key))).",
                    details: details
                )
            }
        }

        /// How a dependency on `key` is written as an optional: an initializer's parameters are resolved without
        /// a name or arguments, so only a factory can ask for a named one or one that takes arguments.
        private static func optionalSpelling(of key: ServiceKey) -> String {
            guard key.name != nil || !key.argumentTypeNames.isEmpty else {
                return "\(key.pathComponent)? in the initializer, `r.resolve` in a factory"
            }
            let name = key.name.map { ", name: \"\($0)\"" } ?? ""
            let count = key.argumentTypeNames.count
            let arguments = count == 0 ? "" : (count == 1 ? ", argument: ..." : ", arguments: ...")
            return "`r.resolve(\(key.serviceType).self\(name)\(arguments))` in a factory"
        }

        // MARK: Build failures

        private func failureProblems() -> [VerificationReport.Problem] {
            // A chain too deep for the thread stops the build of each registration on it, at a different step: one
            // problem, the first, with how many more registrations stopped the same way.
            let tooDeep = verification.failures.filter { ($0.error as? ResolutionError)?.reason == .tooDeep }
            let failures = verification.failures.filter {
                ($0.error as? ResolutionError)?.reason != .tooDeep || $0.node == tooDeep.first?.node
            }
            return failures.map { failure in
                let label = nodes[failure.node].label
                let resolution = failure.error as? ResolutionError
                let cause = resolution?.underlyingError ?? (resolution == nil ? failure.error : nil)
                // No request names a collection's element: it is named in words, and its collection is what
                // fails at run time.
                let key = nodes[failure.node].key
                let element = key.option as? ContributionOption
                let named = element == nil ? label : key.requestDescription
                let failing = element.map { "\($0.collectionLabel(name: key.name)), which makes it," } ?? label
                let hint: String
                switch resolution?.reason {
                case .typeMismatch?:
                    hint = "Make the factory of \(named) return an instance of \(key.serviceType)."
                case .initCompletedFailed?:
                    hint = "Fix what the callback throws for; resolving \(failing) at run time fails the same way."
                case .tooDeep?:
                    hint =
                        "The chain is deeper than the verifying thread's stack allows: if it is meant, resolve "
                        + "\(failing) on a thread with a larger stack (and verify there); if not, look for "
                        + "registrations that keep asking for one more."
                case .factoryFailed? where resolution?.thrownByDecorator == true:
                    hint =
                        "Fix what the decorator of \(named) throws for; resolving \(failing) at run time fails the same way."
                default:
                    hint = "Fix what the factory throws for; resolving \(failing) at run time fails the same way."
                }
                return VerificationReport.Problem(
                    .buildFailed,
                    service: label,
                    message: resolution.map(Self.headline) ?? "Building \(label) failed: \(failure.error)",
                    path: labels(rootPath(to: failure.node)),
                    hint: hint,
                    details: resolution?.reason == .tooDeep && tooDeep.count > 1
                        ? ["\(tooDeep.count - 1) more registrations on the chain stopped the same way"]
                        : cause.map { ["error: \($0)"] } ?? [],
                    underlyingError: cause
                )
            }
        }

        // MARK: Teardowns that never run

        private func teardownProblems() -> [VerificationReport.Problem] {
            verification.neverTornDown.map { finding in
                let node = nodes[finding.node]
                return VerificationReport.Problem(
                    .teardownNeverRuns,
                    service: node.label,
                    message: "\(node.label) adopts \(finding.adopted), but its scope (\(node.scopeName)) never tears "
                        + "instances down: only `.container` and `.scoped` instances are torn down.",
                    path: labels(rootPath(to: finding.node)),
                    hint: "Register \(node.label) `.scoped` (torn down when its scope ends) or `.container` (when its "
                        + "container ends). If something else releases it, drop the conformance and clean up there."
                )
            }
        }

        /// The teardowns that threw when verification ended its copy: at run time, ending the scope or
        /// container would throw the same.
        private func teardownFailureProblems() -> [VerificationReport.Problem] {
            verification.teardownFailures.map { failure in
                VerificationReport.Problem(
                    .buildFailed,
                    service: failure.service,
                    message: "Tearing down \(failure.service), made while verifying, threw.",
                    path: [failure.service],
                    hint: "Fix what its tearDown() throws for; ending its scope or container at run time fails the "
                        + "same way.",
                    details: ["error: \(failure.error)"],
                    underlyingError: failure.error
                )
            }
        }

        /// The first line of the error's description, without its identifier.
        private static func headline(_ error: ResolutionError) -> String {
            let first = error.description.split(separator: "\n", omittingEmptySubsequences: false).first ?? ""
            guard first.hasPrefix("["), let end = first.firstIndex(of: "]") else { return String(first) }
            return String(first[first.index(after: end)...].drop { $0 == " " })
        }
    }
}
