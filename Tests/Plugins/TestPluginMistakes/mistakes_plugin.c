/* A C plugin that makes a plugin author's mistakes on purpose, for the
 * tests of what restored tells about them.
 *
 * App id org.restored.test.Mistakes. Its tree:
 *
 *     Window
 *     |- Editor      registered; its state is "text"
 *     |- Sidebar     restoration class SidebarClass, which recreates it
 *     |- Inspector   never registered, no restoration class: not restored
 *     `- Panel       restoration class PanelClass, which declines it
 *
 * The option `mode-file` names a file read at every save; its first word
 * picks what this save does:
 *   complete      encode every object (the default, also without the file)
 *   reserved-key  Editor encodes "restored.cursor" (a reserved key, R5)
 *   ignore-refusal  Editor encodes "restored.cursor", ignores the refusal
 *                 and returns success
 *   over-budget   Sidebar encodes more bytes than the object budget (R13)
 *   keep          answer "keep the last archive" through save_decision
 *   decline       answer "decline" through save_decision
 * The option `text` is what Editor encodes under "text". */
#include <restored/plugin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { WINDOW, EDITOR, SIDEBAR, INSPECTOR, PANEL, OBJECT_COUNT };

static const char *const identifiers[OBJECT_COUNT] = { "Window", "Editor", "Sidebar", "Inspector", "Panel" };
static const char *const classes[OBJECT_COUNT] = { "MistakesWindow", "MistakesEditor", "MistakesSidebar", "MistakesInspector", "MistakesPanel" };
static const char *const restoration_classes[OBJECT_COUNT] = { "", "", "SidebarClass", "", "PanelClass" };

typedef struct {
    const restored_host_functions *host;
    restored_host_context *context;
    char mode_file[4096];
    char text[256];
    char mode[32];
    char objects[OBJECT_COUNT];
} app;

static restored_string text(const char *s) { return (restored_string){ s, strlen(s) }; }

static void copy_option(char *target, size_t size, restored_string value) {
    size_t n = value.length < size - 1 ? value.length : size - 1;
    memcpy(target, value.data, n);
    target[n] = 0;
}

static int index_of(app *a, restored_object *object) {
    for (int i = 0; i < OBJECT_COUNT; i++)
        if ((restored_object *)&a->objects[i] == object) return i;
    return -1;
}

static void *create(const restored_plugin_descriptor *d, const restored_host_functions *host,
                    restored_host_context *context, const restored_option *options, size_t count) {
    app *a = calloc(1, sizeof *a);
    (void)d;
    if (!a) return NULL;
    a->host = host;
    a->context = context;
    strcpy(a->text, "hello");
    for (size_t i = 0; i < count; i++) {
        if (options[i].key.length == 9 && memcmp(options[i].key.data, "mode-file", 9) == 0)
            copy_option(a->mode_file, sizeof a->mode_file, options[i].value);
        if (options[i].key.length == 4 && memcmp(options[i].key.data, "text", 4) == 0)
            copy_option(a->text, sizeof a->text, options[i].value);
    }
    return a;
}
static void destroy(void *instance) { free(instance); }
static void end_walk(void *instance) { (void)instance; }

/* Reads this save's mode from the mode file. */
static void read_mode(app *a) {
    strcpy(a->mode, "complete");
    FILE *file = a->mode_file[0] ? fopen(a->mode_file, "r") : NULL;
    if (!file) return;
    if (fscanf(file, "%31s", a->mode) != 1) strcpy(a->mode, "complete");
    fclose(file);
}

static restored_status should_save(void *instance, restored_coder *coder, bool *result) {
    app *a = instance; (void)coder;
    read_mode(a);
    *result = strcmp(a->mode, "decline") != 0;
    return RESTORED_OK;
}
static restored_status save_decision(void *instance, restored_coder *coder, uint32_t *decision) {
    app *a = instance; (void)coder;
    read_mode(a);
    if (strcmp(a->mode, "keep") == 0) *decision = RESTORED_SAVE_DECISION_KEEP;
    else if (strcmp(a->mode, "decline") == 0) *decision = RESTORED_SAVE_DECISION_DECLINE;
    else *decision = RESTORED_SAVE_DECISION_SAVE;
    return RESTORED_OK;
}

static restored_status report(app *a, int index, restored_object_sink *sink) {
    restored_object_info info = { .struct_size = sizeof info, .identifier = text(identifiers[index]),
                                  .class_name = text(classes[index]), .restoration_class = text(restoration_classes[index]) };
    return a->host->sink_add(sink, (restored_object *)&a->objects[index], &info);
}
static restored_status list_objects(void *instance, restored_object *parent, restored_object_sink *sink) {
    app *a = instance;
    if (!parent) return report(a, WINDOW, sink);
    if (index_of(a, parent) != WINDOW) return RESTORED_OK;
    for (int i = EDITOR; i < OBJECT_COUNT; i++) {
        restored_status status = report(a, i, sink);
        if (status != RESTORED_OK) return status;
    }
    return RESTORED_OK;
}
static restored_status describe_object(void *instance, restored_object *object, restored_object_sink *sink) {
    app *a = instance;
    int index = index_of(a, object);
    return index < 0 ? RESTORED_ERROR_INVALID_ARGUMENT : report(a, index, sink);
}
static restored_status encode_object(void *instance, restored_object *object, restored_coder *coder) {
    app *a = instance;
    int index = index_of(a, object);
    if (index == EDITOR) {
        restored_value value = { .type = RESTORED_VALUE_STRING, .as.string = text(a->text) };
        restored_status status = a->host->encode_value(coder, text("text"), &value);
        if (status != RESTORED_OK) return status;
        if (strcmp(a->mode, "reserved-key") == 0 || strcmp(a->mode, "ignore-refusal") == 0) {
            restored_value cursor = { .type = RESTORED_VALUE_INT64, .as.int64 = 42 };
            restored_status refused = a->host->encode_value(coder, text("restored.cursor"), &cursor);
            return strcmp(a->mode, "ignore-refusal") == 0 ? RESTORED_OK : refused;
        }
    }
    if (index == SIDEBAR && strcmp(a->mode, "over-budget") == 0) {
        size_t length = 4u << 20;
        char *bytes = calloc(1, length);
        if (!bytes) return RESTORED_ERROR_FAILED;
        restored_value value = { .type = RESTORED_VALUE_BYTES, .as.bytes = { bytes, length } };
        restored_status status = a->host->encode_value(coder, text("thumbnails"), &value);
        free(bytes);
        return status;
    }
    return RESTORED_OK;
}

/* Restoration: Window and Editor are registered, Sidebar is recreated by
 * its class, Panel's class declines, Inspector is found nowhere. */
static int path_index(const restored_path *path) {
    if (path->count == 0) return -1;
    restored_string last = path->components[path->count - 1].identifier;
    for (int i = 0; i < OBJECT_COUNT; i++)
        if (last.length == strlen(identifiers[i]) && memcmp(last.data, identifiers[i], last.length) == 0) return i;
    return -1;
}
static restored_status registered_object(void *instance, const restored_path *path, restored_object **result) {
    app *a = instance;
    int index = path_index(path);
    *result = index == WINDOW || index == EDITOR ? (restored_object *)&a->objects[index] : NULL;
    return RESTORED_OK;
}
static restored_status object_from_class(void *instance, restored_string name, const restored_path *path,
                                         restored_coder *coder, restored_object **result) {
    app *a = instance; (void)name; (void)coder;
    *result = path_index(path) == SIDEBAR ? (restored_object *)&a->objects[SIDEBAR] : NULL;
    return RESTORED_OK;
}
static restored_status restore_identity(void *i, restored_object *o, restored_string id, restored_string c) {
    (void)i; (void)o; (void)id; (void)c; return RESTORED_OK;
}

static const restored_plugin_descriptor descriptor = {
    .abi_version = RESTORED_PLUGIN_ABI_VERSION, .struct_size = sizeof descriptor,
    .app_id = "org.restored.test.Mistakes", .app_version = "1.0", .display_name = "Mistakes (test)",
    .create = create, .destroy = destroy, .end_walk = end_walk,
    .should_save_application_state = should_save, .list_objects = list_objects,
    .encode_object = encode_object, .object_from_restoration_class = object_from_class,
    .registered_object = registered_object, .describe_object = describe_object,
    .restore_identity = restore_identity, .save_decision = save_decision,
};

const restored_plugin_descriptor *restored_plugin_v1(void) { return &descriptor; }
