// The heap's free memory back to the system, for restored's idle times.
#include "c_restored_support.h"

#include <malloc.h>

int c_restored_trim_heap(void) {
    return malloc_trim(0);
}
