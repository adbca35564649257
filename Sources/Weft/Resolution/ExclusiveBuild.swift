/// A value made at most once at a time, by one thread, while other threads that want it wait: the state of a
/// ``Lazy`` and of the lazy property wrappers.
///
/// No lock is held while the value is made (making it runs factories). Threads wait through the
/// ``BuildCoordinator``, which also sees the waits for shared instances: a wait that would close a cycle of
/// threads waiting for each other (this thread is making something that the maker of this value waits for)
/// fails with ``ResolutionError/Reason/circularDependency`` instead of hanging.
final class ExclusiveBuild<Kept>: BuildWaitTarget, @unchecked Sendable {
    /// Guards `kept` and `owner`; never held while the value is made.
    private let lock = Lock()
    private var kept: Kept?
    /// The resolution (one per thread) making the value right now.
    private var owner: ResolutionState?

    init() {}

    /// What ``value(for:read:make:)`` does next, decided under the lock.
    private enum Step<Result> {
        case done(Result)
        case make
        case makeAgain
        case wait
    }

    /// The value `read` finds in what is kept; otherwise makes it with `make`, keeps its `kept` part, and
    /// returns its `result` part.
    ///
    /// `read` runs under the lock and returns nil for "not made yet". A thread asking again while it is making
    /// the value (a factory reads it) makes it again without keeping it: the engine reports the cycle, or the
    /// graph already has the instance.
    ///
    /// - Parameter key: The registration the value is made from, for the error of a cycle of waits.
    func value<Result>(
        for key: ServiceKey,
        read: (Kept) -> Result?,
        make: () throws -> (kept: Kept, result: Result)
    ) throws -> Result {
        let state = ResolutionState.current
        while true {
            let step: Step<Result> = lock.withLock {
                if let kept, let found = read(kept) { return .done(found) }
                guard let owner else {
                    owner = state
                    return .make
                }
                return owner === state ? .makeAgain : .wait
            }
            switch step {
            case .done(let found):
                return found
            case .makeAgain:
                return try make().result
            case .wait:
                try BuildCoordinator.waitWhileBuilt(self, key: key, state: state)
            case .make:
                let made: (kept: Kept, result: Result)
                do {
                    made = try make()
                } catch {
                    finish(keeping: nil)
                    throw error
                }
                finish(keeping: made.kept)
                return made.result
            }
        }
    }

    /// Ends this thread's making, keeping `value` unless something was set meanwhile, and wakes the waiters.
    private func finish(keeping value: Kept?) {
        lock.withLock {
            if kept == nil { kept = value }
            owner = nil
        }
        BuildCoordinator.condition.broadcast()
    }

    /// Replaces what is kept and returns what was (for the caller to release outside the lock).
    func replace(with value: Kept?) -> Kept? {
        lock.withLock {
            defer { kept = value }
            return kept
        }
    }

    /// Whether nothing is kept, or what is kept no longer counts (`isGone`); nothing is made. What is kept is
    /// copied under the lock and judged after it: judging a weak reference takes a strong one, and letting go of
    /// that may release the instance's last reference and run its deinit, which must not run under the lock.
    func keepsNothing(_ isGone: (Kept) -> Bool = { _ in false }) -> Bool {
        guard let kept = lock.withLock({ kept }) else { return true }
        return isGone(kept)
    }

    var waitBuilder: ResolutionState? { lock.withLock { owner } }
    var offersInstance: Bool { false }
}
