/// What ``Container/verificationReport(strict:)`` found: every problem of the container's registrations at
/// once, the registrations it could not check, and the dependency graph.
///
/// ``Container/verify(strict:)`` throws the report when it has problems, so that one line in a test prints
/// all of them:
///
/// ```swift
/// @Test func containerIsValid() throws {
///     try AppContainer.make().verify()
/// }
/// ```
///
/// ```
/// Weft verification failed: 2 problems in 7 registrations (1 missing registration, 1 captive dependency).
///
/// 1. [missing-registration] CheckoutService needs PaymentGateway, which is not registered.
///    path: AppCoordinator -> CheckoutService -> PaymentGateway
///    hint: Register PaymentGateway in this container or a parent. ...
///
/// 2. [captive-dependency] ...
/// ```
public struct VerificationReport: Error, CustomStringConvertible, Sendable {
    /// One problem: what is wrong, along which path, and what to do about it.
    public struct Problem: CustomStringConvertible, @unchecked Sendable {
        /// The kinds of problem, each with a stable identifier (its raw value, e.g. `missing-registration`) to
        /// search for.
        public enum Kind: String, Sendable, CaseIterable {
            /// A service needs another that is not registered.
            case missingRegistration = "missing-registration"
            /// Services need each other in a way that cannot be built: their initializers (or factories)
            /// need each other, or `.transient` services ask for each other without end.
            case unbuildableCycle = "unbuildable-cycle"
            /// A service is kept longer than one of its dependencies' scopes intends: a `.container` (or
            /// custom-scoped) service holding a `.weak` or custom-scoped one; in strict mode also a
            /// `.transient` or `.graph` one.
            case captiveDependency = "captive-dependency"
            /// Building the service failed: a factory or `initCompleted` callback threw, or a factory made an
            /// instance of the wrong type.
            case buildFailed = "build-failed"
            /// A service adopts ``Teardown`` or ``AsyncTeardown``, but its object scope never tears instances
            /// down: only `.container` instances (when their container ends) and `.scoped` ones (when their
            /// scope ends) are torn down.
            case teardownNeverRuns = "teardown-never-runs"

            /// How the kind is counted in the report's header: "missing registration", ...
            var title: String {
                switch self {
                case .missingRegistration: return "missing registration"
                case .unbuildableCycle: return "unbuildable cycle"
                case .captiveDependency: return "captive dependency"
                case .buildFailed: return "build failure"
                case .teardownNeverRuns: return "lost teardown"
                }
            }
        }

        /// The kind of problem.
        public let kind: Kind
        /// The registration the problem is about, as paths write it: the missing service, the first service
        /// of a cycle, the service holding a captive dependency, the service that failed to build.
        public let service: String
        /// What is wrong, in one sentence.
        public let message: String
        /// The services involved, from a service that nothing else depends on (where one exists) to the
        /// problem; a cycle ends with its first service again.
        public let path: [String]
        /// What to do about it.
        public let hint: String
        /// More facts: registrations that might have been meant, the error a factory threw.
        public let details: [String]
        /// The error a factory or `initCompleted` callback threw, for ``Kind/buildFailed``.
        public let underlyingError: (any Error)?

        /// The stable identifier of the problem's kind, e.g. `missing-registration`.
        public var id: String { kind.rawValue }

        /// The path joined by ` -> `.
        public var pathDescription: String { path.joined(separator: " -> ") }

        /// The problem as one block of the report:
        ///
        /// ```
        /// [missing-registration] CheckoutService needs PaymentGateway, which is not registered.
        ///    path: AppCoordinator -> CheckoutService -> PaymentGateway
        ///    hint: Register PaymentGateway in this container or a parent. ...
        /// ```
        public var description: String {
            block(indent: "   ")
        }

        /// The block with its following lines indented by `indent`.
        func block(indent: String) -> String {
            var lines = ["[\(id)] \(message)"]
            if !path.isEmpty { lines.append(indent + "path: " + pathDescription) }
            lines += details.map { indent + $0 }
            lines.append(indent + "hint: " + hint)
            return lines.joined(separator: "\n")
        }

        init(
            _ kind: Kind,
            service: String,
            message: String,
            path: [String],
            hint: String,
            details: [String] = [],
            underlyingError: (any Error)? = nil
        ) {
            self.kind = kind
            self.service = service
            self.message = message
            self.path = path
            self.hint = hint
            self.details = details
            self.underlyingError = underlyingError
        }
    }

    /// A registration that verification could not check, and why.
    public struct UncheckedRegistration: CustomStringConvertible, Sendable, Hashable {
        /// The registration: its type, name and argument types.
        public let service: String
        /// Why it was not checked.
        public let reason: String

        /// "`service`: `reason`".
        public var description: String { "\(service): \(reason)" }
    }

    /// Every problem found, by kind (missing registrations first, then cycles, captive dependencies and build
    /// failures), then by path.
    public let problems: [Problem]
    /// The registrations that could not be checked: closure registrations that need runtime arguments,
    /// `@MainActor` ones when verifying synchronously off the main actor, and async ones when verifying
    /// synchronously (``AsyncResolver/verify(strict:)`` builds those).
    public let unchecked: [UncheckedRegistration]
    /// How many registrations were checked.
    public let checkedCount: Int
    /// Whether `.transient` and `.graph` dependencies of singletons counted as captive.
    public let strict: Bool
    /// The dependency graph the checks ran on.
    public let graph: DependencyGraph

    /// Whether there is no problem (registrations that were not checked do not count).
    public var isValid: Bool { problems.isEmpty }

    /// The problems of one kind.
    public func problems(ofKind kind: Problem.Kind) -> [Problem] {
        problems.filter { $0.kind == kind }
    }

    /// The whole report: a header with the counts, one numbered block per problem, and the registrations
    /// that were not checked.
    public var description: String {
        var sections = [header]
        for (number, problem) in problems.enumerated() {
            let prefix = "\(number + 1). "
            sections.append(prefix + problem.block(indent: String(repeating: " ", count: prefix.count)))
        }
        if !unchecked.isEmpty {
            let lines = unchecked.map { "- \($0)" }
            sections.append((["Not checked:"] + lines).joined(separator: "\n"))
        }
        return sections.joined(separator: "\n\n")
    }

    private var header: String {
        let registrations = Self.count(checkedCount, "registration")
        let mode = strict ? " (strict)" : ""
        guard !problems.isEmpty else {
            let unchecked = unchecked.isEmpty ? "" : "; \(Self.count(self.unchecked.count, "registration")) not checked"
            return "Weft verification passed\(mode): \(registrations) checked, no problems\(unchecked)."
        }
        let counts = Problem.Kind.allCases.compactMap { kind -> String? in
            let count = problems(ofKind: kind).count
            return count == 0 ? nil : Self.count(count, kind.title)
        }
        var text = "Weft verification failed\(mode): \(Self.count(problems.count, "problem")) in \(registrations) "
        text += "(\(counts.joined(separator: ", ")))"
        if !unchecked.isEmpty { text += "; \(Self.count(unchecked.count, "registration")) not checked" }
        return text + "."
    }

    /// "1 problem", "2 problems", "1 captive dependency", "2 captive dependencies".
    private static func count(_ count: Int, _ noun: String) -> String {
        guard count != 1 else { return "1 \(noun)" }
        return noun.hasSuffix("y") ? "\(count) \(noun.dropLast())ies" : "\(count) \(noun)s"
    }
}
