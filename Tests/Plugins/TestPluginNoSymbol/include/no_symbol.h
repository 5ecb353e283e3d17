/* A shared object that is not a restored plugin. */
#ifndef RESTORED_TEST_NO_SYMBOL_H
#define RESTORED_TEST_NO_SYMBOL_H
int restored_test_not_a_plugin(void);
#endif
