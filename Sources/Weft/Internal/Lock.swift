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

/// A non-recursive mutual-exclusion lock in an object of its own: `os_unfair_lock` on Apple platforms, an
/// ``InlineLock`` elsewhere. A waiter sleeps in the kernel rather than spinning. Never held while user code
/// runs.
@usableFromInline struct Lock: @unchecked Sendable {
    #if canImport(Darwin)
        @usableFromInline final class Storage: ManagedBuffer<Void, os_unfair_lock> {}
    #else
        @usableFromInline final class Storage {
            @usableFromInline let word = InlineLock()
        }
    #endif

    @usableFromInline let storage: Storage

    init() {
        #if canImport(Darwin)
            let buffer = Storage.create(minimumCapacity: 1) { _ in () }
            storage = unsafeDowncast(buffer, to: Storage.self)
            storage.withUnsafeMutablePointerToElements { $0.initialize(to: os_unfair_lock()) }
        #else
            storage = Storage()
        #endif
    }

    @inlinable @inline(__always)
    func lock() {
        #if canImport(Darwin)
            storage.withUnsafeMutablePointerToElements { os_unfair_lock_lock($0) }
        #else
            storage.word.lock()
        #endif
    }

    @inlinable @inline(__always)
    func unlock() {
        #if canImport(Darwin)
            storage.withUnsafeMutablePointerToElements { os_unfair_lock_unlock($0) }
        #else
            storage.word.unlock()
        #endif
    }

    @inline(__always)
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}

/// A lock stored inside its owner, costing no allocation of its own. On Linux a futex mutex over
/// `Synchronization.Atomic`: taking a free lock is one compare-and-swap, releasing it one exchange; a thread
/// that finds it taken spins a few reads, then sleeps in the kernel until the holder wakes it. Apple platforms
/// keep ``Lock`` inside, since `Atomic` needs macOS 15 / iOS 18 there. Never held while user code runs.
@usableFromInline struct InlineLock: ~Copyable, @unchecked Sendable {
    #if canImport(Darwin)
        @usableFromInline let base = Lock()
    #else
        /// 0: free; 1: held; 2: held, and a thread may be asleep waiting for it.
        @usableFromInline let word = Atomic<UInt32>(0)
    #endif

    @inlinable @inline(__always)
    func lock() {
        #if canImport(Darwin)
            base.lock()
        #else
            let (taken, _) = word.compareExchange(
                expected: 0, desired: 1, successOrdering: .acquiring, failureOrdering: .relaxed)
            if !taken { lockContended() }
        #endif
    }

    @inlinable @inline(__always)
    func unlock() {
        #if canImport(Darwin)
            base.unlock()
        #else
            if word.exchange(0, ordering: .releasing) == 2 { wakeOne() }
        #endif
    }

    @inline(__always)
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }

    #if !canImport(Darwin)
        /// Spins a few plain reads (a holder usually lets go within them), then marks the lock as having a
        /// sleeper and sleeps until the word changes; whoever takes it after sleeping keeps the mark, so that
        /// its own release wakes the next sleeper.
        @usableFromInline @inline(never)
        func lockContended() {
            for _ in 0..<64 {
                if word.load(ordering: .relaxed) == 0,
                    word.compareExchange(
                        expected: 0, desired: 1, successOrdering: .acquiring, failureOrdering: .relaxed
                    ).exchanged
                {
                    return
                }
            }
            while word.exchange(2, ordering: .acquiring) != 0 {
                weft_futex_wait(address, 2)
            }
        }

        @usableFromInline @inline(never)
        func wakeOne() {
            weft_futex_wake_one(address)
        }

        /// The word's address, for the kernel. An `Atomic` is never copied or moved (it is `~Copyable` and
        /// stored in place in its owner), so the address of a borrow is the address of the stored word.
        private var address: UnsafeMutablePointer<UInt32> {
            withUnsafePointer(to: word) { UnsafeMutableRawPointer(mutating: $0).assumingMemoryBound(to: UInt32.self) }
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
