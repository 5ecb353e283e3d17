/*
 * A plugin that declares a future ABI version: the host must refuse it.
 */
#include <restored/plugin.h>

static const restored_plugin_descriptor descriptor = {
    .abi_version = 99,
    .struct_size = sizeof(restored_plugin_descriptor),
    .app_id = "org.restored.test.WrongABI",
    .app_version = "1",
    .display_name = "Wrong ABI",
};

const restored_plugin_descriptor *restored_plugin_v1(void) {
    return &descriptor;
}
