#if defined(__linux__)
#define _GNU_SOURCE
#endif
#include "WeftAtomics.h"

#include <pthread.h>

#include <sched.h>

#if defined(__linux__)
#include <linux/futex.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

uint64_t weft_registry_version_storage = 1;
int64_t weft_restored_graphs_storage = 0;
int64_t weft_registering_scopes_storage = 0;
static uint64_t weft_container_serials = 0;
_Thread_local void *weft_thread_state = 0;
_Thread_local weft_async_spare_list weft_async_spares = {0, 0, 0, 0};

/// The Swift runtime's (exported on every platform Swift runs on, part of its stable ABI on Apple platforms): the
/// object, retained, or NULL when its deinit has begun.
extern void *swift_tryRetain(const void *object);

_Bool weft_try_retain(const void *object) {
    return swift_tryRetain(object) != 0;
}

uint64_t weft_next_container_serial(void) {
    return weft_next_serial(&weft_container_serials);
}

#if defined(__linux__)
void weft_futex_wait(uint32_t *word, uint32_t expected) {
    syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
}

void weft_futex_wake_one(uint32_t *word) {
    syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}
#else
// Apple platforms use os_unfair_lock and never call these; other systems without futexes yield.
void weft_futex_wait(uint32_t *word, uint32_t expected) {
    (void)word;
    (void)expected;
    sched_yield();
}

void weft_futex_wake_one(uint32_t *word) {
    (void)word;
}
#endif

int weft_current_thread_stack(uintptr_t *bottom, uintptr_t *size) {
#if defined(__APPLE__)
    pthread_t thread = pthread_self();
    uintptr_t top = (uintptr_t)pthread_get_stackaddr_np(thread);
    uintptr_t length = (uintptr_t)pthread_get_stacksize_np(thread);
    if (length == 0 || top < length) return -1;
    *bottom = top - length;
    *size = length;
    return 0;
#elif defined(__linux__)
    pthread_attr_t attributes;
    if (pthread_getattr_np(pthread_self(), &attributes) != 0) return -1;
    void *address = 0;
    size_t length = 0;
    int failed = pthread_attr_getstack(&attributes, &address, &length);
    pthread_attr_destroy(&attributes);
    if (failed != 0 || address == 0 || length == 0) return -1;
    *bottom = (uintptr_t)address;
    *size = (uintptr_t)length;
    return 0;
#else
    (void)bottom;
    (void)size;
    return -1;
#endif
}
