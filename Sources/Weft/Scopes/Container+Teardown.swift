#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension Container {
    /// How long ``end(timeout:)`` waits for one teardown when no bound is given: 30 seconds.
    public static let defaultTeardownTimeout: Double = 30

    /// Ends this container or scope: tears down the instances it keeps that adopt ``Teardown`` or
    /// ``AsyncTeardown``, newest first, then releases them.
    ///
    /// That is the `.container` singletons of its own registrations (a server ends its root container at
    /// shutdown; they are made anew if resolved again) and, for a scope (``makeScope()``), its `.scoped`
    /// instances; afterwards resolving a `.scoped` service from the scope fails with
    /// ``ResolutionError/Reason/scopeEnded``, and an instance that was still being made when the scope ended is
    /// torn down instead of handed out. Calling `end()` again tears down only what was made since.
    ///
    /// A synchronous ``Teardown`` runs on the calling task, to its end. An ``AsyncTeardown`` runs in a task of
    /// its own and may take up to `timeout` seconds. One that takes longer, or every one still running when
    /// the task calling `end` is cancelled, is reported as a failure (its error is a ``TeardownInterruption``)
    /// and `end` goes on without it: such a teardown cannot be stopped, so it keeps running unawaited, and
    /// what it throws later goes to ``loggingFunction``. The other teardowns still run.
    ///
    /// ```swift
    /// try await scope.end()                 // each teardown bounded by defaultTeardownTimeout
    /// try await container.end(timeout: 5)   // at shutdown, with a grace period of five seconds each
    /// ```
    ///
    /// - Parameter timeout: The longest an async teardown may take, in seconds.
    /// - Throws: ``TeardownError`` listing every teardown that threw or did not finish, after all of them ran.
    @inlinable
    nonisolated(nonsending) public func end(timeout: Double = Container.defaultTeardownTimeout) async throws {
        // Where nothing needs tearing down (most units of work), the scope ends on the caller's executor, without
        // a hop, and, inlined into the caller, without an async call of its own: only its instances are released.
        if endUnlessTearingDown() { return }
        try await endTearingDown(timeout: timeout)
    }

    /// Ends this container, as ``end(timeout:)`` does, when it keeps nothing to tear down, and returns true;
    /// otherwise changes nothing and returns false (``endTearingDown(timeout:)`` then ends it).
    @usableFromInline func endUnlessTearingDown() -> Bool {
        let ended: Bool = lock.withLock {
            guard lifetime.owned.isEmpty else { return false }
            lifetime.ended = true
            return true
        }
        guard ended else { return false }
        finishEnd()
        return true
    }

    /// ``end(timeout:)`` when instances need tearing down: nonisolated, so the teardowns run off the caller's
    /// actor, as they always have.
    @usableFromInline func endTearingDown(timeout: Double) async throws {
        let owned = beginEnd()
        var failures: [TeardownError.Failure] = []
        for instance in owned.reversed() {
            if let failure = await Self.tearDown(instance, within: timeout) {
                failures.append(failure)
            }
        }
        finishEnd()
        if !failures.isEmpty { throw TeardownError(failures: failures) }
    }

    /// Ends this container as ``end(timeout:)`` does, from synchronous code (a synchronous verification ends its
    /// copy so): ``Teardown`` instances are torn down here, ``AsyncTeardown`` ones in a task of their own, whose
    /// failures go to ``loggingFunction``.
    ///
    /// - Returns: The teardowns that threw here.
    func endSynchronously() -> [TeardownError.Failure] {
        let owned = beginEnd()
        var failures: [TeardownError.Failure] = []
        for instance in owned.reversed() {
            if let failure = Self.tearDownDetached(instance) { failures.append(failure) }
        }
        finishEnd()
        return failures
    }

    /// Tears `owned` down for ``end(timeout:)``; returns its failure. A synchronous ``Teardown`` runs here, to
    /// its end: synchronous code cannot be left running without a thread of its own, and a task for each one
    /// would cost every scope that keeps one far more than the teardown itself. An ``AsyncTeardown`` runs in a
    /// task of its own, awaited at most `timeout` seconds or until the calling task is cancelled.
    static func tearDown(_ owned: OwnedInstance, within timeout: Double) async -> TeardownError.Failure? {
        switch owned.kind {
        case .none:
            return nil
        case .synchronous:
            return owned.tearDownSynchronously()
        case .asynchronous:
            return await owned.tearDown(within: timeout)
        }
    }

    /// Tears `instance` down if it adopts ``Teardown`` or ``AsyncTeardown``, and waits for it; returns its
    /// failure.
    static func tearDown(_ instance: Any, name: TeardownName) async -> TeardownError.Failure? {
        do {
            try await OwnedInstance(finding: instance, name: name).tearDown()
            return nil
        } catch {
            return .init(service: name.description, error: error)
        }
    }

    /// Tears `owned` down without waiting for an async teardown: a ``Teardown`` here (its failure returned and
    /// logged), an ``AsyncTeardown`` in a task of its own (its failure logged).
    @discardableResult
    static func tearDownDetached(_ owned: OwnedInstance) -> TeardownError.Failure? {
        switch owned.kind {
        case .none:
            return nil
        case .asynchronous:
            owned.tearDownInTaskOfItsOwn()
            return nil
        case .synchronous:
            let failure = owned.tearDownSynchronously()
            if let failure { log(.teardownFailed(TeardownError(failures: [failure]))) }
            return failure
        }
    }
}
