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
        let claim = slot.claimForTask(key: key, graph: graph, storage: storage, gated: storage == nil && usesGate)
        lock.unlock()
        return claim
    }

    /// See ``_ServiceEntryBase/endTaskBuild(_:)``.
    func endingTaskBuild(_ build: AsyncBuild) -> Bool {
        lock.lock()
        // Only a task takes a claim over (from a thread whose build is about to fail): the build still holds it.
        guard slot.buildClaim.taskBuild === build else {
            lock.unlock()
            return true
        }
        return endBuildAndUnlock()
    }
}
