/// The claim to build a shared instance, as a task takes it: the same claim a thread takes (``BuildClaimState``),
/// held by ``ResolutionState/asyncBuilder`` with the ``AsyncBuild`` other tasks wait for. One claim per
/// registration for both kinds of builder, so that what a claim guards holds for both: a discard while the
/// instance is made marks the build stale, and a stale instance is handed to the resolve that made it but neither
/// kept nor handed to the tasks that waited for it. What a synchronous resolve finds while a task holds the claim
/// is decided here too (``ServiceEntry/taskHoldsClaim(_:graph:transient:)``).
extension ServiceEntry {
    /// See ``_ServiceEntryBase/claimForTask(key:graph:)``.
    func claimingForTask(key: ServiceKey, graph: GraphIdentifier) -> TaskClaim {
        if originalReference != nil { dropIfOriginalDiscarded() }
        let storage = lockWithStorage()
        let gated = storage == nil && usesGate
        // A build in flight first: its instance may be stored already while its callbacks still run.
        if let taskBuild = buildClaim.taskBuild {
            lock.unlock()
            return .wait(taskBuild)
        }
        if !gated, let stored = keptLocked(storage, graph: graph) {
            lock.unlock()
            return .stored(stored)
        }
        let build = AsyncBuild(key: key)
        buildClaim.take(by: build, graph: graph)
        lock.unlock()
        return .claimed(build, readStorageFirst: gated)
    }

    /// What a synchronous resolve in `graph` finds while a task holds the claim (the caller holds the lock and
    /// read the built-in scope's `storage`): the instance, once stored, when it is this graph's or complete (no
    /// callbacks left to run); that it is being completed; or, while the async factory runs, nothing (the
    /// synchronous engine then finds the factory async).
    func taskHoldsClaim(_ storage: (any InstanceStorage)?, graph: GraphIdentifier, transient: Bool) -> BuildClaim {
        let completing = buildClaim.taskCompleting
        if !transient, buildClaim.builds(in: graph) || !completing, let stored = keptLocked(storage, graph: graph) {
            return .stored(stored)
        }
        return completing ? .completingAsync : .free
    }

    /// See ``_ServiceEntryBase/endTaskBuild(_:)``.
    func endingTaskBuild(_ build: AsyncBuild) -> Bool {
        // A scope's copy: its original discarding since the claim makes the build stale too, as the next claim
        // would find (see `dropIfOriginalDiscarded()`); read before the lock, which the original's is not taken in.
        let originalDiscards = originalReference?._withUnsafeGuaranteedRef { $0.discardCount() }
        lock.lock()
        // Only a task takes a claim over (from a thread whose build is about to fail): the build still holds it.
        guard buildClaim.taskBuild === build else {
            lock.unlock()
            return true
        }
        let current = originalDiscards == nil || originalDiscards == discards
        return endBuildAndUnlock() && current
    }
}
