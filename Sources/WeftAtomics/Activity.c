#if defined(__linux__)
#define _GNU_SOURCE
#endif
#include "WeftAtomics.h"

#include <pthread.h>
#include <stdlib.h>

#if defined(__linux__)
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

uint64_t weft_epoch_storage = 1;
int weft_asymmetric_barrier = 0;

/// The records, newest first; only ever pushed onto.
static weft_activity *weft_activities = 0;
static pthread_once_t weft_barrier_once = PTHREAD_ONCE_INIT;

#if defined(__linux__)
static long weft_membarrier(int command) {
    return syscall(__NR_membarrier, command, 0, 0);
}
#endif

/// Registers for the expedited process-wide barrier; without it every enter pays a full fence.
static void weft_set_up_barrier(void) {
#if defined(__linux__) && defined(MEMBARRIER_CMD_PRIVATE_EXPEDITED)
    long supported = weft_membarrier(MEMBARRIER_CMD_QUERY);
    if (supported > 0 && (supported & MEMBARRIER_CMD_PRIVATE_EXPEDITED) != 0
        && weft_membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0) {
        __atomic_store_n(&weft_asymmetric_barrier, 1, __ATOMIC_RELEASE);
    }
#endif
}

weft_activity *weft_activity_take(void) {
    pthread_once(&weft_barrier_once, weft_set_up_barrier);
    for (weft_activity *record = __atomic_load_n(&weft_activities, __ATOMIC_ACQUIRE); record; record = record->next) {
        uint32_t free = 0;
        if (__atomic_load_n(&record->taken, __ATOMIC_RELAXED) == 0
            && __atomic_compare_exchange_n(&record->taken, &free, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
            return record;
        }
    }
    weft_activity *record = calloc(1, sizeof(weft_activity));
    if (!record) abort();
    record->taken = 1;
    weft_activity *head = __atomic_load_n(&weft_activities, __ATOMIC_RELAXED);
    do {
        record->next = head;
    } while (!__atomic_compare_exchange_n(&weft_activities, &head, record, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
    return record;
}

void weft_activity_give_back(weft_activity *activity) {
    __atomic_store_n(&activity->epoch, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&activity->taken, 0, __ATOMIC_RELEASE);
}

uint64_t weft_retire_epoch(void) {
    return __atomic_fetch_add(&weft_epoch_storage, 1, __ATOMIC_SEQ_CST);
}

uint64_t weft_oldest_activity(void) {
    pthread_once(&weft_barrier_once, weft_set_up_barrier);
    // Read before the scan: a registration retired while the scan runs is retired at this epoch or a later
    // one, and a resolve may have found it before the scan began without the scan seeing that resolve inside
    // (it may have entered after its record was read). Capping the answer at this epoch keeps such
    // registrations for the next check.
    uint64_t current = __atomic_load_n(&weft_epoch_storage, __ATOMIC_SEQ_CST);
#if defined(__linux__) && defined(MEMBARRIER_CMD_PRIVATE_EXPEDITED)
    if (__atomic_load_n(&weft_asymmetric_barrier, __ATOMIC_ACQUIRE)) {
        // Every thread of the process passes a full barrier: an enter whose store this scan cannot see yet
        // is followed by lookups that see the registry without what was retired.
        // Without the barrier nothing can be shown unused: the oldest possible epoch.
        if (weft_membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) != 0) return 0;
    }
#endif
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    uint64_t oldest = UINT64_MAX;
    for (weft_activity *record = __atomic_load_n(&weft_activities, __ATOMIC_ACQUIRE); record; record = record->next) {
        uint64_t epoch = __atomic_load_n(&record->epoch, __ATOMIC_ACQUIRE);
        if (epoch != 0 && epoch < oldest) oldest = epoch;
    }
    return oldest < current ? oldest : current;
}
