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

/// The next container serial number (never 0).
uint64_t weft_next_container_serial(void);

#endif
