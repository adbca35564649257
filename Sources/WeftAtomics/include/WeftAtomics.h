// The few atomic operations Weft's resolution hot path needs, as C11 atomics, so that Weft keeps its
// deployment floors (Swift's Synchronization module needs macOS 15 / iOS 18).
#ifndef WEFT_ATOMICS_H
#define WEFT_ATOMICS_H

#include <stdint.h>

/// Bumped on every change that can alter what a lookup finds: a registration added, replaced or
/// removed, or a registration's scope or callbacks changed. Starts at 1.
extern uint64_t weft_registry_version_storage;

/// The registry version, read with acquire ordering (a plain load on x86-64 and arm64).
static inline uint64_t weft_registry_version(void) {
    return __atomic_load_n(&weft_registry_version_storage, __ATOMIC_ACQUIRE);
}

/// Marks a registry change (after the change itself is done and visible under its lock).
static inline void weft_registry_changed(void) {
    __atomic_fetch_add(&weft_registry_version_storage, 1, __ATOMIC_ACQ_REL);
}

/// A process-wide counter for unique numbers (container serial numbers).
static inline uint64_t weft_next_serial(uint64_t *counter) {
    return __atomic_add_fetch(counter, 1, __ATOMIC_RELAXED);
}

/// How many containers have a graph set by `restoreObjectGraph` that no resolve has taken yet.
extern int64_t weft_restored_graphs_storage;

static inline int64_t weft_restored_graphs(void) {
    return __atomic_load_n(&weft_restored_graphs_storage, __ATOMIC_ACQUIRE);
}

static inline void weft_restored_graphs_add(int64_t delta) {
    __atomic_fetch_add(&weft_restored_graphs_storage, delta, __ATOMIC_ACQ_REL);
}

/// Retains a Swift object unless its deinit has begun; returns whether it did. For a reference that does not keep
/// its object alive and is not `weak` (see `ContainerReference`): a weak reference gives the object a side table,
/// which makes every retain and release of it slow. In C because the Swift runtime declares it only for C.
_Bool weft_try_retain(const void *object);

/// How many live scopes have registrations of their own. While none has, a scope's lookups are its nearest
/// non-scope ancestor's (see `Container.scopeBase`), with no walk up the chain of scopes.
extern int64_t weft_registering_scopes_storage;

static inline int64_t weft_registering_scopes(void) {
    return __atomic_load_n(&weft_registering_scopes_storage, __ATOMIC_ACQUIRE);
}

static inline void weft_registering_scopes_add(int64_t delta) {
    __atomic_fetch_add(&weft_registering_scopes_storage, delta, __ATOMIC_ACQ_REL);
}

/// Adds `delta` to a counter of waiters (see `Condition.swift`), as a full barrier.
static inline void weft_waiters_add(int64_t *counter, int64_t delta) {
    __atomic_fetch_add(counter, delta, __ATOMIC_SEQ_CST);
}

/// Reads a counter of waiters after a full fence: a thread that has just finished what others wait for sees
/// every waiter that might not have seen it finished (a waiter counts itself before it looks).
static inline int64_t weft_waiters_load(int64_t *counter) {
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return __atomic_load_n(counter, __ATOMIC_SEQ_CST);
}

/// The next container serial number (never 0).
uint64_t weft_next_container_serial(void);

/// Puts the calling thread to sleep while `*word` equals `expected` (a Linux futex wait; elsewhere it
/// yields the processor once). In C because the futex call is reached through the variadic `syscall`, which
/// Swift cannot call. May return early; the caller re-checks the word.
void weft_futex_wait(uint32_t *word, uint32_t expected);

/// Wakes one thread sleeping in `weft_futex_wait` on `word` (nothing where there are no futexes).
void weft_futex_wake_one(uint32_t *word);

/// The calling thread's resolution state (not retained: a pthread key's destructor releases it when the
/// thread ends), or NULL before the thread's first resolve. A thread-local variable, so that reading it is
/// a load instead of a call to `pthread_getspecific` and a check that the key exists.
extern _Thread_local void *weft_thread_state;

static inline void *weft_current_thread_state(void) {
    return weft_thread_state;
}

static inline void weft_set_current_thread_state(void *state) {
    weft_thread_state = state;
}

/// A number that tells the calling thread apart from every other running thread: the address of its
/// `weft_thread_state`.
static inline uintptr_t weft_thread_token(void) {
    return (uintptr_t)&weft_thread_state;
}

/// A thread's spare async contexts: an unmanaged, retained reference to the first (which holds the next), how
/// many more the thread may keep (0 until it has registered their release at its end: one test then covers
/// both), and whether the thread has registered that release (see `AsyncContext`); and its spare async graph,
/// unmanaged and retained, or null (see `AsyncGraph`).
typedef struct weft_async_spare_list {
    void *top;
    intptr_t room;
    int registered;
    void *graph;
} weft_async_spare_list;

extern _Thread_local weft_async_spare_list weft_async_spares;

/// The calling thread's spare async contexts. A thread-local variable, read on every nested async resolve.
static inline weft_async_spare_list *weft_thread_async_spares(void) {
    return &weft_async_spares;
}

/// An address in the current stack frame: the frame address of the function this is inlined into. In C
/// because Swift has no way to read it without making a stack slot for a local and taking its address.
static inline uintptr_t weft_frame_address(void) {
    return (uintptr_t)__builtin_frame_address(0);
}

/// The lowest address and the size of the calling thread's stack; returns 0 on success. In C because
/// `pthread_getattr_np` is a GNU extension that Swift's Glibc module does not declare.
int weft_current_thread_stack(uintptr_t *bottom, uintptr_t *size);

// MARK: Reclaiming replaced registrations (epoch-based)
//
// The engine refers to registrations without retaining them while a resolve runs, so a registration that is
// replaced or removed is kept ("retired") until no resolve that could have found it is still running. Each
// thread (and each async graph) owns an activity record: the epoch it entered the engine at, or 0 while idle.
// A registration retired at epoch E may be released once every record reads 0 or more than E.
//
// Entering costs a load and a store: the ordering between that store and the lookups that follow comes from a
// process-wide barrier the (rare) reclaimer issues (`membarrier` on Linux), or, where there is none, from a
// full fence on entry.

/// One thread's, or one async graph's, activity record. Records are never freed: one whose owner is gone is
/// taken by the next.
typedef struct weft_activity {
    /// The epoch its owner entered the engine at; 0 while it is outside.
    uint64_t epoch;
    /// Whether an owner holds the record.
    uint32_t taken;
    /// The next record of the process-wide list (set before the record is published, never changed).
    struct weft_activity *next;
} weft_activity;

/// The current epoch (starts at 1; never 0).
extern uint64_t weft_epoch_storage;
/// Whether the reclaimer's process-wide barrier is available, so that entering needs no fence of its own. Set
/// once, before the first record is handed out.
extern int weft_asymmetric_barrier;

/// Takes a free activity record (or makes one) for a new owner.
weft_activity *weft_activity_take(void);

/// Gives a record back; its owner is outside the engine.
void weft_activity_give_back(weft_activity *activity);

/// Whether the record's owner is inside the engine. Only its owner asks; atomic because the record may have
/// had another owner before (a thread that ended), whose last writes reached this one through the runtime.
static inline int weft_activity_is_inside(weft_activity *activity) {
    return __atomic_load_n(&activity->epoch, __ATOMIC_RELAXED) != 0;
}

/// Marks the record's owner as inside the engine from the current epoch on; before its first lookup.
static inline void weft_activity_enter(weft_activity *activity) {
    uint64_t epoch = __atomic_load_n(&weft_epoch_storage, __ATOMIC_ACQUIRE);
    __atomic_store_n(&activity->epoch, epoch, __ATOMIC_RELEASE);
    if (__builtin_expect(weft_asymmetric_barrier, 1)) {
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
    } else {
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
    }
}

/// Marks the record's owner as outside the engine: nothing it found is used any more.
static inline void weft_activity_leave(weft_activity *activity) {
    __atomic_store_n(&activity->epoch, 0, __ATOMIC_RELEASE);
}

/// Opens a new epoch and returns the one it closes: call after a retired registration is out of the registry
/// and the registry version is bumped; the registration may be released once `weft_oldest_activity()` is more.
uint64_t weft_retire_epoch(void);

/// The oldest epoch a record's owner is inside the engine at, and at most the epoch current when the call
/// began (a registration retired during the call has that epoch or a later one).
uint64_t weft_oldest_activity(void);

#endif
