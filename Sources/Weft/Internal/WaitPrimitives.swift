#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A pthread mutex and condition variable at fixed addresses (pthreads must not see them move), for the few
/// places where threads sleep until told: the build ``Condition`` and the ``TeardownClock``.
enum WaitPrimitives {
    /// A new mutex and condition; the condition measures timed waits on the monotonic clock when `monotonic`
    /// (off Apple platforms, where `pthread_cond_timedwait` takes an absolute time on the condition's clock).
    static func make(monotonic: Bool = false) -> (
        mutex: UnsafeMutablePointer<pthread_mutex_t>, condition: UnsafeMutablePointer<pthread_cond_t>
    ) {
        let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        #if canImport(Darwin)
            pthread_cond_init(condition, nil)
        #else
            if monotonic {
                var attributes = pthread_condattr_t()
                pthread_condattr_init(&attributes)
                pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
                pthread_cond_init(condition, &attributes)
                pthread_condattr_destroy(&attributes)
            } else {
                pthread_cond_init(condition, nil)
            }
        #endif
        return (mutex, condition)
    }

    /// Destroys and frees what ``make(monotonic:)`` made; nobody may wait on them any more.
    static func destroy(
        _ mutex: UnsafeMutablePointer<pthread_mutex_t>, _ condition: UnsafeMutablePointer<pthread_cond_t>
    ) {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deinitialize(count: 1)
        condition.deallocate()
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }
}
