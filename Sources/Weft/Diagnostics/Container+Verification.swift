import Dispatch

/// Whole-graph verification and graph export.
///
/// ```swift
/// @Test func containerIsValid() throws {
///     try AppContainer.make().verify()   // fails with every problem at once
/// }
/// ```
///
/// Verification never touches the container's instances. Autoregistered services are checked from the
/// dependencies their initializers declare, without calling them. Closure registrations are checked by
/// building each of them in a throwaway copy of the container (and of its parents): a copy of every
/// registration with the same factory, scope and `initCompleted` callbacks but no instances. The copy is
/// dropped afterwards, so no singleton made during verification stays, and no factory runs in the real
/// container. Building reveals what each factory resolves; a closure registration that needs runtime
/// arguments cannot be built and is listed as not checked. So is one whose factory is async (or needs an async
/// one): `try await container.async.verify()` builds those too (``AsyncResolver/verify(strict:)``).
///
/// A factory that force-unwraps a missing dependency (`r.resolve(Engine.self)!`) stops the program during
/// verification as it would at run time; no check can catch that. Write such factories with
/// `try r.require(Engine.self)`, or use ``autoregister(_:name:initializer:)``, and verification reports
/// the missing service instead. The same holds for a factory that resolves from a container it captured
/// rather than from the resolver it is given: that container is not the copy, and verification cannot see
/// or shield what the factory does there.
extension Container {
    /// Checks every registration and throws a ``VerificationReport`` with all the problems found, if any.
    ///
    /// ```swift
    /// @Test func containerIsValid() throws {
    ///     try container.verify()
    /// }
    /// ```
    ///
    /// The problems are missing registrations, cycles that cannot be built, captive dependencies,
    /// registrations whose factory or callbacks fail, and services adopting ``Teardown`` in a scope that never
    /// tears them down (see ``VerificationReport/Problem/Kind``). Registrations that could not be checked do
    /// not make it throw; they are in the report's ``VerificationReport/unchecked``. Async factories are not
    /// run here: use ``AsyncResolver/verify(strict:)`` (`try await container.async.verify()`) for a
    /// container that has them.
    ///
    /// - Parameter strict: Also count a `.transient` or `.graph` dependency of a `.container` (or
    ///   custom-scoped) service as captive. Off by default, since Swinject users often mean a singleton to
    ///   keep the one instance it was given.
    /// - Throws: The ``VerificationReport``, when it has problems.
    public func verify(strict: Bool = false) throws {
        let report = verificationReport(strict: strict)
        if !report.isValid { throw report }
    }

    /// Checks every registration and returns what was found, problems or not.
    ///
    /// ```swift
    /// let report = container.verificationReport()
    /// for problem in report.problems where problem.kind == .captiveDependency {
    ///     print(problem.pathDescription)
    /// }
    /// ```
    ///
    /// - Parameter strict: Also count `.transient` and `.graph` dependencies of singletons as captive (see
    ///   ``verify(strict:)``).
    /// - Returns: The problems, the registrations not checked, and the dependency graph.
    public func verificationReport(strict: Bool = false) -> VerificationReport {
        guard ResolutionState.current.depth == 0 else {
            // Called from inside a factory: the builds must not join the graph being resolved on this thread.
            return Self.onAnotherThread { self.verificationReport(strict: strict) }
        }
        return Verification(container: self, strict: strict).run()
    }

    /// The dependency graph of the registrations visible from this container, found as
    /// ``verificationReport(strict:)`` finds it.
    ///
    /// ```swift
    /// print(container.dependencyGraph().dot)
    /// ```
    public func dependencyGraph() -> DependencyGraph {
        verificationReport().graph
    }

    /// Makes the throwaway copy of this container and its parents that verification builds in.
    func makeVerificationCopy() -> VerificationCopy {
        var entries: [ObjectIdentifier: _ServiceEntryBase] = [:]
        var chain: [Container] = []
        let container = copyForVerification(entries: &entries, chain: &chain)
        return VerificationCopy(container: container, entries: entries, chain: chain)
    }

    private func copyForVerification(
        entries: inout [ObjectIdentifier: _ServiceEntryBase],
        chain: inout [Container]
    ) -> Container {
        let parentCopy = parent?.copyForVerification(entries: &entries, chain: &chain)
        let container = Container(
            parent: parentCopy,
            debugHelper: SilentDebugHelper(),
            defaultObjectScope: defaultObjectScope,
            synchronized: synchronized
        )
        chain.append(container)
        var keysOfEntry: [ObjectIdentifier: (entry: _ServiceEntryBase, keys: [ServiceKey])] = [:]
        for (key, entry) in ownRegistrations() {
            keysOfEntry[ObjectIdentifier(entry), default: (entry, [])].keys.append(key)
        }
        for (id, registration) in keysOfEntry {
            entries[id] = registration.entry.copyForVerification(into: container, keys: registration.keys)
        }
        return container
    }

    /// Runs `body` on another thread and waits for its result.
    private static func onAnotherThread<T>(_ body: @escaping @Sendable () -> T) -> T {
        let result = ResultBox<T>()
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            result.value = body()
            done.signal()
        }
        done.wait()
        return result.value.unsafelyUnwrapped
    }
}

extension AsyncResolver {
    /// Checks every registration, async factories included, and throws a ``VerificationReport`` with all the
    /// problems found, if any.
    ///
    /// ```swift
    /// @Test func serverContainerIsValid() async throws {
    ///     try await AppContainer.make().async.verify()
    /// }
    /// ```
    ///
    /// It checks what ``Container/verify(strict:)`` checks, building each registration as
    /// `container.async.require` would: async factories run (in the throwaway copy of the container, inside
    /// a scope of it), synchronous ones run as they do from async code, and `@MainActor` ones run on the main
    /// actor. So a singleton whose async factory captures a `.scoped` service is reported as a captive
    /// dependency, and a cycle through async factories as an unbuildable cycle.
    ///
    /// A synchronous factory that resolves a service whose factory is async cannot build it (it works only
    /// while a `.container` instance already exists): such registrations are listed in
    /// ``VerificationReport/unchecked`` with the factory to make async.
    ///
    /// - Parameter strict: Also count `.transient` and `.graph` dependencies of singletons as captive.
    /// - Throws: The ``VerificationReport``, when it has problems.
    public func verify(strict: Bool = false) async throws {
        let report = await verificationReport(strict: strict)
        if !report.isValid { throw report }
    }

    /// Checks every registration, async factories included, and returns what was found, problems or not (see
    /// ``verify(strict:)``).
    public func verificationReport(strict: Bool = false) async -> VerificationReport {
        await Verification(container: container, strict: strict, asynchronous: true).runAsync()
    }

    /// The dependency graph of the registrations visible from the container, async factories included, found
    /// as ``verificationReport(strict:)`` finds it.
    public func dependencyGraph() async -> DependencyGraph {
        await verificationReport().graph
    }
}

/// A copy of a container and its parents for verification to build in.
struct VerificationCopy {
    /// The copy of the verified container.
    let container: Container
    /// The copy of each registration, by the real registration's identity.
    let entries: [ObjectIdentifier: _ServiceEntryBase]
    /// The containers of the copy, outermost first.
    let chain: [Container]

    /// The containers of the copy.
    var containers: Set<ObjectIdentifier> { Set(chain.map(ObjectIdentifier.init)) }
}

/// The debug helper of a verification copy: a failed `resolve` there is not the app's, so it is not logged.
private final class SilentDebugHelper: DebugHelper {
    func resolutionFailed<Service>(
        serviceType _: Service.Type,
        key _: ServiceKey,
        availableRegistrations _: [ServiceKey: any ServiceEntryProtocol]
    ) {}

    func log(_: ResolutionError) {}
}

/// Carries a result from the thread that made it to the thread waiting for it (after a semaphore).
private final class ResultBox<T>: @unchecked Sendable {
    var value: T?
}
