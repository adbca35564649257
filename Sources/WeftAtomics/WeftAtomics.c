#include "WeftAtomics.h"

uint64_t weft_registry_version_storage = 1;
int64_t weft_restored_graphs_storage = 0;
static uint64_t weft_container_serials = 0;

uint64_t weft_next_container_serial(void) {
    return weft_next_serial(&weft_container_serials);
}
