#include "CProcessControl.h"

#include <malloc.h>
#include <sys/prctl.h>

int kra_set_dumpable(int dumpable) {
    return prctl(PR_SET_DUMPABLE, (unsigned long)dumpable, 0UL, 0UL, 0UL);
}

int kra_dumpable(void) {
    return prctl(PR_GET_DUMPABLE, 0UL, 0UL, 0UL, 0UL);
}

int kra_return_free_memory(void) {
    return malloc_trim(0);
}

int kra_limit_malloc_arenas(int count) {
    return mallopt(M_ARENA_MAX, count);
}
