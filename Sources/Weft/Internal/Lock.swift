#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A small non-recursive mutual-exclusion lock: `os_unfair_lock` on Apple platforms,
/// `pthread_mutex_t` elsewhere. Never held while user code runs, except where noted.
final class Lock: @unchecked Sendable {
    #if canImport(Darwin)
        private let raw: UnsafeMutablePointer<os_unfair_lock>
    #else
        private let raw: UnsafeMutablePointer<pthread_mutex_t>
    #endif

    init() {
        #if canImport(Darwin)
            raw = .allocate(capacity: 1)
            raw.initialize(to: os_unfair_lock())
        #else
            raw = .allocate(capacity: 1)
            raw.initialize(to: pthread_mutex_t())
            pthread_mutex_init(raw, nil)
        #endif
    }

    deinit {
        #if !canImport(Darwin)
            pthread_mutex_destroy(raw)
        #endif
        raw.deinitialize(count: 1)
        raw.deallocate()
    }

    @inline(__always)
    func lock() {
        #if canImport(Darwin)
            os_unfair_lock_lock(raw)
        #else
            pthread_mutex_lock(raw)
        #endif
    }

    @inline(__always)
    func unlock() {
        #if canImport(Darwin)
            os_unfair_lock_unlock(raw)
        #else
            pthread_mutex_unlock(raw)
        #endif
    }

    @inline(__always)
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }
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
