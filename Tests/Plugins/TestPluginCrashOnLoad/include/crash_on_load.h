/* A shared object that crashes while it is loaded. */
#ifndef RESTORED_TEST_CRASH_ON_LOAD_H
#define RESTORED_TEST_CRASH_ON_LOAD_H
int restored_test_crash_on_load_marker(void);
#endif
