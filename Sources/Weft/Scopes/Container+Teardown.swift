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
    /// Each teardown may take up to `timeout` seconds. One that takes longer, or every one still running when
    /// the task calling `end` is cancelled, is reported as a failure (its error is a ``TeardownInterruption``)
    /// and `end` goes on without it: such a teardown cannot be stopped, so it keeps running unawaited, and
    /// what it throws later goes to ``loggingFunction``. The other teardowns still run.
    ///
    /// ```swift
    /// try await scope.end()                 // each teardown bounded by defaultTeardownTimeout
    /// try await container.end(timeout: 5)   // at shutdown, with a grace period of five seconds each
    /// ```
    ///
    /// - Parameter timeout: The longest a teardown may take, in seconds.
    /// - Throws: ``TeardownError`` listing every teardown that threw or did not finish, after all of them ran.
    public func end(timeout: Double = Container.defaultTeardownTimeout) async throws {
        let owned = beginEnd()
        var failures: [TeardownError.Failure] = []
        for (instance, name) in owned.reversed() {
            let box = TeardownBox(instance: instance, name: name)
            if let failure = await box.run(within: timeout) {
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
        for (instance, name) in owned.reversed() {
            if let failure = Self.tearDownDetached(instance, name: name) { failures.append(failure) }
        }
        finishEnd()
        return failures
    }

    /// Tears `instance` down if it adopts ``Teardown`` or ``AsyncTeardown``; returns its failure.
    static func tearDown(_ instance: Any, name: TeardownName) async -> TeardownError.Failure? {
        do {
            try await TeardownBox(instance: instance, name: name).tearDown()
            return nil
        } catch {
            return .init(service: name.description, error: error)
        }
    }

    /// Tears `instance` down without waiting for an async teardown: a ``Teardown`` here (its failure returned),
    /// an ``AsyncTeardown`` in a task of its own (its failure logged).
    @discardableResult
    static func tearDownDetached(_ instance: Any, name: TeardownName) -> TeardownError.Failure? {
        if let instance = instance as? any AsyncTeardown {
            let box = TeardownBox(instance: instance, name: name)
            Task { await box.runAndLog() }
            return nil
        }
        guard let instance = instance as? any Teardown else { return nil }
        do {
            try instance.tearDown()
            return nil
        } catch {
            let failure = TeardownError.Failure(service: name.description, error: error)
            log(.teardownFailed(TeardownError(failures: [failure])))
            return failure
        }
    }
}

/// One instance to tear down, handed to the tasks that run and time its teardown; nothing else uses it by then.
private struct TeardownBox: @unchecked Sendable {
    let instance: Any
    let name: TeardownName

    /// Tears the instance down; throws what its teardown throws.
    func tearDown() async throws {
        if let instance = instance as? any AsyncTeardown {
            try await instance.tearDown()
        } else if let instance = instance as? any Teardown {
            try instance.tearDown()
        }
    }

    /// Tears the instance down, logging a failure.
    func runAndLog() async {
        do {
            try await tearDown()
        } catch {
            Container.log(.teardownFailed(TeardownError(failures: [.init(service: name.description, error: error)])))
        }
    }

    /// Tears the instance down and waits at most `seconds`, or until the calling task is cancelled; returns the
    /// failure, if any. A teardown that is not awaited to its end goes on in its task, its failure logged.
    func run(within seconds: Double) async -> TeardownError.Failure? {
        let race = TeardownRace()
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<TeardownRace.Outcome, Never>) in
                race.start(continuation)
                let nanoseconds = seconds >= 1e9 ? UInt64.max : UInt64(max(0, seconds) * 1e9)
                race.setTimer(
                    Task {
                        do {
                            try await Task.sleep(nanoseconds: nanoseconds)
                            race.finish(.timedOut)
                        } catch {}  // Cancelled: the teardown ended first.
                    }
                )
                // Started even when the waiting task is already cancelled: the teardown runs, unawaited.
                Task {
                    do {
                        try await tearDown()
                        race.finish(.done)
                    } catch {
                        if !race.finish(.failed(error)) {
                            let failure = TeardownError.Failure(service: name.description, error: error)
                            Container.log(.teardownFailed(TeardownError(failures: [failure])))
                        }
                    }
                }
            }
        } onCancel: {
            race.finish(.cancelled)
        }
        switch outcome {
        case .done: return nil
        case .failed(let error): return .init(service: name.description, error: error)
        case .timedOut: return .init(service: name.description, error: TeardownInterruption.timedOut(seconds: seconds))
        case .cancelled: return .init(service: name.description, error: TeardownInterruption.cancelled)
        }
    }
}

/// The first of a teardown's end, its time-out and the cancellation of the waiting task: resumes the waiting
/// task once, with whichever comes first.
private final class TeardownRace: @unchecked Sendable {
    enum Outcome {
        case done
        case failed(any Error)
        case timedOut
        case cancelled
    }

    private let lock = Lock()
    private var continuation: CheckedContinuation<Outcome, Never>?
    /// What came first, once something did.
    private var first: Outcome?
    /// The task that ends the race at the time-out; cancelled when something else comes first.
    private var timer: Task<Void, Never>?

    /// Gives the race the waiting task's continuation, resumed at once when the race is already decided
    /// (the task was cancelled before it started).
    func start(_ continuation: CheckedContinuation<Outcome, Never>) {
        let decided: Outcome? = lock.withLock {
            if let first { return first }
            self.continuation = continuation
            return nil
        }
        if let decided { continuation.resume(returning: decided) }
    }

    /// Keeps the time-out's task, to cancel it when something else comes first.
    func setTimer(_ task: Task<Void, Never>) {
        let decided = lock.withLock {
            if first == nil { timer = task }
            return first != nil
        }
        if decided { task.cancel() }
    }

    /// Ends the race with `outcome` if nothing came first; returns whether it did.
    @discardableResult
    func finish(_ outcome: Outcome) -> Bool {
        let ended: (CheckedContinuation<Outcome, Never>?, Task<Void, Never>?)? = lock.withLock {
            guard first == nil else { return nil }
            first = outcome
            defer { (continuation, timer) = (nil, nil) }
            return (continuation, timer)
        }
        guard let (waiting, timer) = ended else { return false }
        timer?.cancel()
        waiting?.resume(returning: outcome)
        return true
    }
}
