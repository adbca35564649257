/// One step of the path being resolved, in either engine: a registration whose factory (or whose `initCompleted`
/// callbacks) runs, and how it was asked for. A thread's ``FrameStack`` holds its steps as frames; an async
/// factory's ``AsyncContext`` holds its own. A trivial value: setting one is a few stores.
struct ResolutionStep {
    /// Not retained: a registration lives as long as its container, which a resolve in flight holds
    /// (see ``Container`` on retired registrations), and an async resolve's graph keeps every registration it found.
    let entry: EntryReference
    let serviceType: Any.Type
    let argumentsType: Any.Type
    /// True while the registration's factory runs; false while its `initCompleted` callbacks run.
    var inFactory: Bool

    init(entry: EntryReference, serviceType: Any.Type, argumentsType: Any.Type, inFactory: Bool) {
        self.entry = entry
        self.serviceType = serviceType
        self.argumentsType = argumentsType
        self.inFactory = inFactory
    }

    /// The step of `entry`'s factory, asked for as `key`.
    init(_ entry: _ServiceEntryBase, key: ServiceKey) {
        self.init(
            entry: .passUnretained(entry), serviceType: key.serviceType, argumentsType: key.argumentsType,
            inFactory: true)
    }

    /// Whether this step is `entry`'s, compared by identity without retaining either.
    func makes(_ entry: _ServiceEntryBase) -> Bool {
        self.entry.toOpaque() == Unmanaged.passUnretained(entry).toOpaque()
    }
}

/// The path being resolved, whichever engine runs it: one view over the steps of both engines, which cycle
/// detection, error paths and the origins of deferred `initCompleted` callbacks read.
///
/// A path is one chain, outermost first: the async factories running for a task (each step held by its
/// ``AsyncContext``, linked to the step outside it through ``AsyncContext/outer``), then the synchronous frames of
/// the thread (``FrameStack``). A thread resolving on its own has frames only; an async factory's resolve has
/// async steps only; a synchronous part of an async resolve (a "segment", see `Container+Segments.swift`) has
/// both: its first frame follows the async step whose factory asked for it (``ResolutionState/Fields/outerSteps``).
///
/// The two kinds of step live where each engine keeps them, so that pushing a synchronous frame stays a few stores
/// and a concurrent child task keeps its own async chain; everything that reads a path reads it through here, so
/// no code joins the two by hand.
struct ResolutionPath {
    /// The innermost async step's context (nil: no async step), unretained: a path is read while the factory of
    /// that step runs, whose caller holds the context.
    private let asyncSteps: Unmanaged<AsyncContext>?
    /// Whether the innermost async step's factory runs, rather than its `initCompleted` callbacks (a synchronous
    /// part of the resolve runs them): as for a synchronous frame, only a step whose factory runs closes a cycle.
    private let innermostAsyncStepInFactory: Bool
    /// The thread whose frames follow the async steps (nil: an async resolve's own path, which has none).
    private let thread: ResolutionState?

    /// The path of an async resolve: the steps of `context` and those outside it.
    init(_ context: AsyncContext) {
        asyncSteps = .passUnretained(context)
        innermostAsyncStepInFactory = true
        thread = nil
    }

    /// The path of the resolve running on `state`'s thread: the async steps of the resolve whose synchronous part the
    /// thread runs, if any, then the thread's frames.
    init(_ state: ResolutionState) {
        asyncSteps = state.fields.pointee.outerSteps
        innermostAsyncStepInFactory = state.fields.pointee.outerStepInFactory
        thread = state
    }

    /// The path for messages, e.g. `["Garage", "Car"]`. A frame that runs a deferred `initCompleted` callback
    /// shows the path its instance was made along, in place of the frames before it.
    var components: [String] {
        var result = asyncComponents
        guard let thread else { return result }
        let frames = thread.fields.pointee.frames
        let outside = result.count
        for frame in frames.suffix(from: 0) {
            if let origin = frames.origin(of: frame) {
                result.removeSubrange(outside...)
                result += Self.components(of: origin)
            } else {
                result.append(frames.key(of: frame).pathComponent)
            }
        }
        return result
    }

    /// The path of an instance made along `pending`'s path on this thread, from the outermost step of this path
    /// on: what its callbacks' error names when they run outside this thread's resolve.
    func components(madeAlong pending: PendingCompletion) -> [String] {
        asyncComponents + pending.path
    }

    /// The async steps' part of ``components``.
    private var asyncComponents: [String] {
        var path: [String] = []
        forEachAsyncStepInward {
            path.append($0.stepPathComponent)
            return true
        }
        return path.reversed()
    }

    /// The path of recorded frames (a deferred callback's origin), each origin in place of the frames before it.
    static func components(of frames: [RecordedFrame]) -> [String] {
        var result: [String] = []
        for frame in frames {
            if let origin = frame.origin {
                result = components(of: origin)
            } else {
                result.append(frame.key.pathComponent)
            }
        }
        return result
    }

    /// Whether `entry`'s async factory may be running on this path: false when no async step shares its bit
    /// (see ``AsyncContext/pathBits``), which rules most requests out without a walk.
    func asyncStepsMayContain(_ entry: _ServiceEntryBase) -> Bool {
        guard let asyncSteps else { return false }
        return asyncSteps._withUnsafeGuaranteedRef { $0.pathBits } & AsyncContext.pathBit(of: entry) != 0
    }

    /// Whether `entry`'s async factory is running on this path.
    func asyncStepsContain(_ entry: _ServiceEntryBase) -> Bool {
        guard asyncStepsMayContain(entry) else { return false }
        var found = false
        var innermost = true
        forEachAsyncStepInward {
            found = $0.step.unsafelyUnwrapped.makes(entry) && (!innermost || innermostAsyncStepInFactory)
            innermost = false
            return !found
        }
        return found
    }

    /// How many async steps of this path make `entry`.
    func asyncOccurrences(of entry: _ServiceEntryBase) -> Int {
        var count = 0
        forEachAsyncStepInward {
            if $0.step.unsafelyUnwrapped.makes(entry) { count += 1 }
            return true
        }
        return count
    }

    /// The contexts of the async steps, innermost first. A loop rather than a lazy sequence, whose generic code is
    /// not specialised here.
    private func forEachAsyncStepInward(_ body: (AsyncContext) -> Bool) {
        var current = asyncSteps?.takeUnretainedValue()
        while let context = current {
            if !context.hasNoStep, !body(context) { return }
            current = context.outer
        }
    }
}
