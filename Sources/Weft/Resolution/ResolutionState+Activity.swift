import WeftAtomics

extension ResolutionState {
    /// Marks this thread as inside the engine, before it looks up a registration, unless it is already: the
    /// registrations it finds are then kept until it leaves (see ``RetiredRegistrations``). Returns whether
    /// this call entered, to pass to ``leaveEngine(_:)``.
    @inline(__always)
    func enterEngine() -> Bool {
        guard weft_activity_is_inside(activity) == 0 else { return false }
        weft_activity_enter(activity)
        return true
    }

    /// Ends what ``enterEngine()`` began when it returned true: nothing this thread found is used any more.
    @inline(__always)
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

/// The activity record of one async graph: a graph holds registrations, by identity, across suspension points
/// and threads, so none it could have found is released before it ends.
final class GraphActivity: @unchecked Sendable {
    private let record = weft_activity_take()
    private var ended = false

    /// Enters the engine for the graph's whole life.
    init() {
        weft_activity_enter(record)
    }

    /// Leaves the engine; called once, when the graph ends.
    func end() {
        guard !ended else { return }
        ended = true
        weft_activity_leave(record)
        weft_activity_give_back(record)
    }

    deinit {
        end()
    }
}
