/// A step of a thread's path (``ResolutionStep``) on its ``FrameStack``, with where the rest of it is.
///
/// A trivial value, so that pushing and popping one is a few stores. The parts of a key that need
/// reference counting (a name, an extension option) and the origin of a deferred `initCompleted` run are
/// kept beside the stack, in ``FrameStack``, only for the frames that have them.
struct ResolutionFrame {
    var step: ResolutionStep
    /// Where the whole key is in ``FrameStack``'s side storage, when it has a name or an option.
    fileprivate let keyIndex: Int32
    /// Where the origin of a deferred `initCompleted` run is in ``FrameStack``'s side storage.
    fileprivate let originIndex: Int32

    /// The step's registration, not retained (see ``ResolutionStep/entry``).
    var entry: EntryReference { step.entry }
    /// True while the registration's factory runs; false while its `initCompleted` callbacks run.
    var inFactory: Bool {
        get { step.inFactory }
        set { step.inFactory = newValue }
    }
}

/// A frame copied off the stack with its whole key: what a deferred `initCompleted` run keeps of the path
/// its instance was made along.
struct RecordedFrame {
    let entry: EntryReference
    let key: ServiceKey
    let inFactory: Bool
    /// The frames that led to the instance of a deferred `initCompleted` run, ending with its own.
    let origin: [RecordedFrame]?
}

/// The registrations in flight on one thread, outermost first: a stack in memory of its own, so that a push
/// or a pop is a store and a counter (an array checks uniqueness and bounds on each).
struct FrameStack {
    private var base: UnsafeMutablePointer<ResolutionFrame>
    private var capacity: Int
    /// How many frames are on the stack.
    private(set) var count = 0
    /// The keys with a name or option of the frames on the stack, in push order.
    private var keys: [ServiceKey] = []
    /// The origins of the frames of deferred `initCompleted` runs on the stack, in push order.
    private var origins: [[RecordedFrame]] = []

    init() {
        capacity = 16
        base = .allocate(capacity: capacity)
    }

    /// Frees the memory; called by the owning thread's state when the thread ends.
    mutating func deallocate() {
        removeAll()
        base.deallocate()
    }

    var isEmpty: Bool { count == 0 }

    /// The innermost frame.
    var last: ResolutionFrame? { count == 0 ? nil : base[count - 1] }

    /// The frame at `index` (0 is the outermost).
    subscript(index: Int) -> ResolutionFrame {
        get { base[index] }
        nonmutating _modify { yield &base[index] }
    }

    /// Pushes a frame for `entry` asked for as `key`; `origin` is the path of a deferred `initCompleted` run.
    @inline(__always)
    mutating func push(_ entry: EntryReference, key: ServiceKey, inFactory: Bool, origin: [RecordedFrame]? = nil) {
        if count == capacity { grow() }
        var keyIndex: Int32 = -1
        if key.name != nil || key.hasOption { keyIndex = pushKey(key) }
        var originIndex: Int32 = -1
        if let origin { originIndex = pushOrigin(origin) }
        (base + count).initialize(
            to: ResolutionFrame(
                step: ResolutionStep(
                    entry: entry,
                    serviceType: key.serviceType,
                    argumentsType: key.argumentsType,
                    inFactory: inFactory
                ),
                keyIndex: keyIndex,
                originIndex: originIndex
            )
        )
        count &+= 1
    }

    @inline(__always)
    mutating func pop() {
        count &-= 1
        // Only the side indices are read: copying the whole frame out costs loads and stores for nothing.
        let frame = base + count
        if frame.pointee.keyIndex >= 0 || frame.pointee.originIndex >= 0 { popSide(of: frame.pointee) }
    }

    /// ``pop()`` for a frame known to have nothing beside the stack: pushed for a key without a name or an option,
    /// and without an origin.
    @inline(__always)
    mutating func popPlain() {
        count &-= 1
    }

    /// Keeps the whole key of a frame being pushed beside the stack and returns where. Out of line, as
    /// ``popSide(of:)`` is, so that the usual push (no name, no option, no origin) stays small where inlined.
    @inline(never)
    private mutating func pushKey(_ key: ServiceKey) -> Int32 {
        keys.append(key)
        return Int32(keys.count - 1)
    }

    /// Keeps the origin of a frame being pushed beside the stack and returns where (see ``pushKey(_:)``).
    @inline(never)
    private mutating func pushOrigin(_ origin: [RecordedFrame]) -> Int32 {
        origins.append(origin)
        return Int32(origins.count - 1)
    }

    /// The part of ``pop()`` for a frame with a whole key or an origin beside the stack: out of line, so that
    /// the usual pop is small enough to be inlined wherever a frame is left.
    @inline(never)
    private mutating func popSide(of frame: ResolutionFrame) {
        if frame.keyIndex >= 0 { keys.removeLast() }
        if frame.originIndex >= 0 { origins.removeLast() }
    }

    mutating func removeAll() {
        count = 0
        if !keys.isEmpty { keys.removeAll(keepingCapacity: true) }
        if !origins.isEmpty { origins.removeAll() }
    }

    /// The index of the outermost frame of `entry`, if it is on the stack.
    @inline(__always)
    func firstIndex(of entry: EntryReference) -> Int? {
        var index = 0
        while index < count {
            if base[index].entry === entry { return index }
            index += 1
        }
        return nil
    }

    /// The frames from `index` on (a view valid until the stack changes).
    func suffix(from index: Int) -> UnsafeBufferPointer<ResolutionFrame> {
        UnsafeBufferPointer(start: base + index, count: count - index)
    }

    /// The whole key `frame` was asked for as.
    func key(of frame: ResolutionFrame) -> ServiceKey {
        if frame.keyIndex >= 0 { return keys[Int(frame.keyIndex)] }
        return ServiceKey(serviceType: frame.step.serviceType, argumentsType: frame.step.argumentsType)
    }

    /// The origin of `frame`, when it is the frame of a deferred `initCompleted` run.
    func origin(of frame: ResolutionFrame) -> [RecordedFrame]? {
        frame.originIndex >= 0 ? origins[Int(frame.originIndex)] : nil
    }

    /// The frames as owned copies (for paths and for deferred callbacks).
    var recorded: [RecordedFrame] {
        suffix(from: 0).map {
            RecordedFrame(entry: $0.entry, key: key(of: $0), inFactory: $0.inFactory, origin: origin(of: $0))
        }
    }

    private mutating func grow() {
        let larger = UnsafeMutablePointer<ResolutionFrame>.allocate(capacity: capacity * 2)
        larger.moveInitialize(from: base, count: count)
        base.deallocate()
        base = larger
        capacity *= 2
    }
}
