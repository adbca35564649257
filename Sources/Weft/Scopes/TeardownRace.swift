extension OwnedInstance {
    /// Tears the instance down in a task of its own, logging a failure; for code that does not wait.
    func tearDownInTaskOfItsOwn() {
        Task {
            do {
                try await tearDown()
            } catch {
                log(error)
            }
        }
    }

    /// Reports a failure nobody awaits any more through the logging hook.
    private func log(_ error: any Error) {
        Container.log(.teardownFailed(TeardownError(failures: [failure(error)])))
    }

    private func failure(_ error: any Error) -> TeardownError.Failure {
        .init(service: name.description, error: error)
    }

    /// Tears the instance down in a task of its own and waits at most `seconds` (on the ``TeardownClock``), or
    /// until the calling task is cancelled; returns the failure, if any. A teardown that is not awaited to its
    /// end goes on in its task, its failure logged.
    func tearDown(within seconds: Double, clock: TeardownClock = .shared) async -> TeardownError.Failure? {
        let race = TeardownRace(clock: clock)
        let deadline = TeardownClock.deadline(after: seconds)
        let outcome = await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<TeardownRace.Outcome, Never>) in
                race.start(continuation, deadline: deadline)
                // Started even when the waiting task is already cancelled: the teardown runs, unawaited.
                Task {
                    do {
                        try await tearDown()
                        race.finish(.done)
                    } catch {
                        if !race.finish(.failed(error)) { log(error) }
                    }
                }
            }
        } onCancel: {
            race.finish(.cancelled)
        }
        switch outcome {
        case .done: return nil
        case .failed(let error): return failure(error)
        case .timedOut: return failure(TeardownInterruption.timedOut(seconds: seconds))
        case .cancelled: return failure(TeardownInterruption.cancelled)
        }
    }
}

/// The first of a teardown's end, its deadline and the cancellation of the waiting task: resumes the waiting
/// task once, with whichever comes first.
final class TeardownRace: @unchecked Sendable {
    enum Outcome {
        case done
        case failed(any Error)
        case timedOut
        case cancelled
    }

    private let lock = Lock()
    private let clock: TeardownClock
    private var continuation: UnsafeContinuation<Outcome, Never>?
    /// What came first, once something did.
    private var first: Outcome?
    /// Whether the race was handed to the clock (decided under `lock`, with the clock's mutex taken inside it:
    /// the clock never takes a race's lock while it holds its own).
    private var scheduled = false

    /// The race's deadline on the monotonic clock and its place in the clock's heap; guarded by the clock.
    var deadline: UInt64 = 0
    var heapIndex: Int?

    init(clock: TeardownClock) {
        self.clock = clock
    }

    /// Gives the race the waiting task's continuation, resumed at once when the race is already decided (the
    /// task was cancelled before it started), and hands it to the clock to time out at `deadline`, if any.
    func start(_ continuation: UnsafeContinuation<Outcome, Never>, deadline: UInt64?) {
        lock.lock()
        if let first {
            lock.unlock()
            continuation.resume(returning: first)
            return
        }
        self.continuation = continuation
        if let deadline {
            scheduled = true
            clock.schedule(self, at: deadline)
        }
        lock.unlock()
    }

    /// Ends the race with `outcome` if nothing came first; returns whether it did.
    @discardableResult
    func finish(_ outcome: Outcome) -> Bool {
        lock.lock()
        guard first == nil else {
            lock.unlock()
            return false
        }
        first = outcome
        let waiting = continuation
        continuation = nil
        let onTheClock = scheduled
        lock.unlock()
        // Takes the race off the clock's heap; nothing to do when the clock itself ended it.
        if onTheClock { clock.cancel(self) }
        waiting?.resume(returning: outcome)
        return true
    }
}
