/*
 * A plugin whose app id breaks the freedesktop rules: the host must refuse it
 * before any file is named after it.
 */
#include <restored/plugin.h>

static const restored_plugin_descriptor descriptor = {
    .abi_version = RESTORED_PLUGIN_ABI_VERSION,
    .struct_size = sizeof(restored_plugin_descriptor),
    .app_id = "../../etc",
    .app_version = "1",
    .display_name = "Invalid app id",
};

const restored_plugin_descriptor *restored_plugin_v1(void) {
    return &descriptor;
}
