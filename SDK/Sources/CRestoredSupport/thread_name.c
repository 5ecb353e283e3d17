// Thread names for restored's own threads.
#include "c_restored_support.h"

#include <errno.h>
#include <sys/prctl.h>

int c_restored_name_current_thread(const char *name) {
    return prctl(PR_SET_NAME, (unsigned long)name, 0, 0, 0) == 0 ? 0 : errno;
}
