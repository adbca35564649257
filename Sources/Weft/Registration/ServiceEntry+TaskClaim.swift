/// The claim to build a shared instance, as a task takes it: the same claim a thread takes (``BuildClaimState``),
/// held by ``ResolutionState/asyncBuilder`` with the ``AsyncBuild`` other tasks wait for. One claim per
/// registration for both kinds of builder, so that what a claim guards holds for both: a discard while the
/// instance is made marks the build stale, and a stale instance is handed to the resolve that made it but neither
/// kept nor handed to the tasks that waited for it. What a synchronous resolve finds while a task holds the claim
/// is decided by the claim (``BuildClaimState/lendsTaskInstance(to:)``).
extension ServiceEntry {
    /// See ``_ServiceEntryBase/claimForTask(key:graph:)``.
    func claimingForTask(key: ServiceKey, graph: GraphIdentifier) -> TaskClaim {
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

    /// See ``_ServiceEntryBase/endTaskBuild(_:)``.
    func endingTaskBuild(_ build: AsyncBuild) -> Bool {
        lock.lock()
        // Only a task takes a claim over (from a thread whose build is about to fail): the build still holds it.
        guard buildClaim.taskBuild === build else {
            lock.unlock()
            return true
        }
        return endBuildAndUnlock()
    }
}
