/*
 * A plugin whose descriptor lacks should_save_application_state, which the
 * ABI requires: the host must refuse it rather than take the gap for "no",
 * which would discard the app's archive (R6).
 */
#include <restored/plugin.h>

static void *create(const restored_plugin_descriptor *descriptor, const restored_host_functions *host,
                    restored_host_context *context, const restored_option *options, size_t count) {
    (void)descriptor; (void)host; (void)context; (void)options; (void)count;
    static int instance;
    return &instance;
}
static void destroy(void *instance) { (void)instance; }
static void end_walk(void *instance) { (void)instance; }
static restored_status list_objects(void *instance, restored_object *parent, restored_object_sink *sink) {
    (void)instance; (void)parent; (void)sink;
    return RESTORED_OK;
}

static const restored_plugin_descriptor descriptor = {
    .abi_version = RESTORED_PLUGIN_ABI_VERSION,
    .struct_size = sizeof(restored_plugin_descriptor),
    .app_id = "org.restored.test.MissingCallback",
    .app_version = "1",
    .display_name = "Missing callback",
    .create = create,
    .destroy = destroy,
    .end_walk = end_walk,
    .list_objects = list_objects,
};

const restored_plugin_descriptor *restored_plugin_v1(void) {
    return &descriptor;
}
