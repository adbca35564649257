import WeftAtomics

extension ResolutionState {
    /// Marks this thread as inside the engine, before it looks up a registration, unless it is already: the
    /// registrations it finds are then kept until it leaves (see ``RetiredRegistrations``). Returns whether
    /// this call entered, to pass to ``leaveEngine(_:)``.
    @inlinable @inline(__always)
    func enterEngine() -> Bool {
        guard weft_activity_is_inside(activity) == 0 else { return false }
        weft_activity_enter(activity)
        return true
    }

    /// Ends what ``enterEngine()`` began when it returned true: nothing this thread found is used any more.
    @inlinable @inline(__always)
    func leaveEngine(_ entered: Bool) {
        if entered { weft_activity_leave(activity) }
    }

    /// Runs `body` inside the engine (see ``enterEngine()``).
    @inline(__always)
    func insideEngine<R>(_ body: () throws -> R) rethrows -> R {
        let entered = enterEngine()
        defer { leaveEngine(entered) }
        return try body()
    }
}
