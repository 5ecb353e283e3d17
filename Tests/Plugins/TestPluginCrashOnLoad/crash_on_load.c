/*
 * A shared object that crashes as it is loaded: its constructor raises
 * SIGSEGV before dlopen returns. Whoever loads it in-process dies with it;
 * restored and restored-ctl load plugins only in their helper processes.
 */
#include <signal.h>

__attribute__((constructor)) static void restored_test_crash_on_load(void) {
    raise(SIGSEGV);
}

int restored_test_crash_on_load_marker(void) {
    return 1;
}
