#include "WeftAtomics.h"

#include <sched.h>

uint64_t weft_registry_version_storage = 1;
int64_t weft_restored_graphs_storage = 0;
static uint64_t weft_container_serials = 0;
_Thread_local void *weft_thread_state = 0;

uint64_t weft_next_container_serial(void) {
    return weft_next_serial(&weft_container_serials);
}

void weft_spin_lock_contended(uint32_t *word) {
    for (;;) {
        // Read-only spinning keeps the cache line shared until the holder lets go.
        for (int spin = 0; spin < 128; spin++) {
            if (__atomic_load_n(word, __ATOMIC_RELAXED) == 0
                && __atomic_exchange_n(word, 1, __ATOMIC_ACQUIRE) == 0) {
                return;
            }
        }
        sched_yield();
    }
}
