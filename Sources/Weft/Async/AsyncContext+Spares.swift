import WeftAtomics

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension AsyncContext {
    /// How many spares a thread keeps at most: more than a usual path is long, few enough to keep little.
    private static var maximumSpares: Int { 16 }

    /// Makes `context`, whose factory has returned (or whose top-level resolve has ended), one of the calling
    /// thread's spares when nothing else refers to it: no resolver kept, no task that still holds one. A context
    /// something else still refers to is left to be released as usual, and retains its outer context from now on
    /// (whose caller, still running, holds it meanwhile). Call last, from the outer context's caller: `context` is
    /// nil after.
    ///
    /// The caller's reference is taken out of its variable and handed to the thread's list as it is, rather than
    /// retained for the list and then released with the variable.
    static func recycle(_ context: inout AsyncContext?) {
        guard isKnownUniquelyReferenced(&context) else {
            context.unsafelyUnwrapped.holdOuter()
            return
        }
        keepAsSpare(context.take().unsafelyUnwrapped)
    }

    /// The same, for a caller whose variable holds `context` non-optionally (released with the variable).
    static func recycle(_ context: inout AsyncContext) {
        guard isKnownUniquelyReferenced(&context) else {
            context.holdOuter()
            return
        }
        keepAsSpare(context)
    }

    /// Notes that the factory of `context`, a nested request's step (never a top-level context: nothing of a
    /// resolution to detach), has returned or thrown (see ``factoryDidReturn()``), and recycles `context` as
    /// ``recycle(_:)`` does. The note is written only when something else still refers to the context: nothing
    /// else can read it otherwise. Inlined into ``AsyncResolver/factoryDidReturn(_:)``, which ends every nested
    /// request's step.
    @inline(__always)
    static func stepDidReturn(_ context: inout AsyncContext?) {
        guard isKnownUniquelyReferenced(&context) else {
            context.unsafelyUnwrapped.factoryDidReturn()
            context.unsafelyUnwrapped.holdOuter()
            return
        }
        keepAsSpare(context.take().unsafelyUnwrapped, topLevel: false)
    }

    /// Clears `context`, which nothing else refers to, and adds it to the calling thread's spares (unless the
    /// thread has enough).
    @inline(__always)
    private static func keepAsSpare(_ context: AsyncContext, topLevel: Bool = true) {
        let spares = weft_thread_async_spares()!
        if spares.pointee.room == 0 {  // Enough spares kept, or their release not registered yet.
            guard spares.pointee.registered == 0 else { return }
            registerSpares(spares)
        }
        // Nothing else can see it: its fields are reset without synchronisation.
        assert(topLevel || context.containerOwner == nil, "a top-level context recycled as a step's")
        if topLevel, context.containerOwner != nil {
            // A top-level context (the only one that holds the container): its graph, if it made one, becomes the
            // thread's spare graph.
            context.containerOwner = nil
            context.detachGraph()
        }
        context.clearStep()
        context.nextSpare = spares.pointee.top
        spares.pointee.top = Unmanaged.passRetained(context).toOpaque()
        spares.pointee.room &-= 1
    }

    /// Makes sure the thread's spares (contexts and graph, in `spares`) are released when the thread ends: the
    /// key's destructor releases them, once registered for the thread, which may then keep spare contexts.
    static func registerSpares(_ spares: UnsafeMutablePointer<weft_async_spare_list>) {
        guard spares.pointee.registered == 0 else { return }
        pthread_setspecific(sparesKey, UnsafeRawPointer(bitPattern: 1))
        spares.pointee.registered = 1
        spares.pointee.room = maximumSpares
    }

    /// One of the calling thread's spares, cleared, or nil when it has none. Inlined: every nested request takes
    /// one.
    @inline(__always)
    static func takeSpare() -> AsyncContext? {
        let spares = weft_thread_async_spares()!
        guard let top = spares.pointee.top else { return nil }
        let spare = Unmanaged<AsyncContext>.fromOpaque(top).takeRetainedValue()
        spares.pointee.top = spare.nextSpare
        spares.pointee.room &+= 1
        return spare
    }
}

/// The key whose destructor releases a thread's spare contexts and graph when the thread ends (its value only
/// says that the thread has spares to release; the spares themselves are in a thread-local variable, faster to
/// read).
private let sparesKey: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key) { _ in
        let spares = weft_thread_async_spares()!
        let (top, graph) = (spares.pointee.top, spares.pointee.graph)
        spares.pointee = weft_async_spare_list(top: nil, room: 0, registered: 0, graph: nil)
        // The list retains each spare.
        var next = top
        while let spare = next {
            let context = Unmanaged<AsyncContext>.fromOpaque(spare).takeRetainedValue()
            next = context.nextSpare
        }
        if let graph { Unmanaged<AsyncGraph>.fromOpaque(graph).release() }
    }
    return key
}()
