#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

#if !canImport(Darwin)
    import Synchronization
    import WeftAtomics
#endif

/// A small non-recursive mutual-exclusion lock for critical sections of a few instructions:
/// `os_unfair_lock` on Apple platforms, a one-word spin lock elsewhere (one atomic exchange to take it, a
/// plain store to release it; a waiter spins briefly, then yields). Never held while user code runs.
///
/// The lock word lives in the tail of one object, so a lock costs one allocation.
struct Lock: @unchecked Sendable {
    #if canImport(Darwin)
        private typealias Word = os_unfair_lock
    #else
        private typealias Word = UInt32
    #endif

    private final class Storage: ManagedBuffer<Void, Word> {}

    private let storage: Storage

    init() {
        let buffer = Storage.create(minimumCapacity: 1) { _ in () }
        storage = unsafeDowncast(buffer, to: Storage.self)
        storage.withUnsafeMutablePointerToElements { word in
            #if canImport(Darwin)
                word.initialize(to: os_unfair_lock())
            #else
                word.initialize(to: 0)
            #endif
        }
    }

    @inline(__always)
    func lock() {
        storage.withUnsafeMutablePointerToElements { word in
            #if canImport(Darwin)
                os_unfair_lock_lock(word)
            #else
                weft_spin_lock(word)
            #endif
        }
    }

    @inline(__always)
    func unlock() {
        storage.withUnsafeMutablePointerToElements { word in
            #if canImport(Darwin)
                os_unfair_lock_unlock(word)
            #else
                weft_spin_unlock(word)
            #endif
        }
    }

    @inline(__always)
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}

/// A lock stored inside its owner, costing no allocation of its own: a one-word spin lock over
/// `Synchronization.Atomic` on Linux (as ``Lock``: one atomic exchange to take it, a plain store to release
/// it). Apple platforms keep ``Lock`` inside, since `Atomic` needs macOS 15 / iOS 18 there. Never held while
/// user code runs.
struct InlineLock: ~Copyable, @unchecked Sendable {
    #if canImport(Darwin)
        private let base = Lock()
    #else
        private let word = Atomic<UInt32>(0)
    #endif

    @inline(__always)
    func lock() {
        #if canImport(Darwin)
            base.lock()
        #else
            if word.exchange(1, ordering: .acquiring) != 0 { lockContended() }
        #endif
    }

    @inline(__always)
    func unlock() {
        #if canImport(Darwin)
            base.unlock()
        #else
            word.store(0, ordering: .releasing)
        #endif
    }

    @inline(__always)
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }

    #if !canImport(Darwin)
        /// Spins a while on a plain read, then yields the processor between attempts.
        @inline(never)
        private func lockContended() {
            var spins = 0
            while true {
                if word.load(ordering: .relaxed) == 0, word.exchange(1, ordering: .acquiring) == 0 { return }
                spins += 1
                if spins >= 128 { sched_yield() }
            }
        }
    #endif
}

/// A recursive lock, used only by `synchronize()`d resolvers to serialise the factory of one
/// registration (the same thread may re-enter it through `Lazy`, `Provider` or a nested graph).
final class RecursiveLock: @unchecked Sendable {
    private let raw: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        raw = .allocate(capacity: 1)
        raw.initialize(to: pthread_mutex_t())
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE))
        pthread_mutex_init(raw, &attributes)
        pthread_mutexattr_destroy(&attributes)
    }

    deinit {
        pthread_mutex_destroy(raw)
        raw.deinitialize(count: 1)
        raw.deallocate()
    }

    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(raw)
        defer { pthread_mutex_unlock(raw) }
        return try body()
    }
}
