/*
 * A shared object that is not a plugin: it does not export restored_plugin_v1.
 */
int restored_test_not_a_plugin(void) {
    return 42;
}
