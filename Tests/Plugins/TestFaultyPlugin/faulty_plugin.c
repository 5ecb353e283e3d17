/* A plugin that misbehaves on purpose, for the plugin host's fault tests
 * and the engine's tests of failed lookups.
 *
 * App id org.restored.test.Faulty; one object, "Main". The option `fault`
 * picks the misbehaviour, at the first `encode_object` unless said otherwise:
 *   segfault        dereference NULL
 *   abort-create    abort() in create
 *   loop            spin forever
 *   exit            exit(0)
 *   leak            allocate and touch memory without bound
 *   garbage         write garbage where restored expects a reply (descriptor 3), then wait
 *   delegate-fails  at restoration, object_from_delegate fails (R8 step 2)
 *   registry-fails  at restoration, registered_object fails (R8 step 3)
 *   registry-fails-silently
 *                   at restoration, object_from_delegate sets an error message and
 *                   succeeds, then registered_object fails without a message
 *   tree-fails      list_tree reports Main and its child "Extra", then fails
 *                   (the host lists the tree with list_objects)
 *   tree-bad-parent list_tree reports Main, an object under a parent it never
 *                   reported, then "Extra" under Main, and ignores the refusals
 *   tree-sink-add   list_tree reports Main, then "Extra" with sink_add, and ignores
 *                   the refusal
 *   tree-unlisted   list_tree reports Main with RESTORED_OBJECT_CHILDREN_UNLISTED;
 *                   list_objects gives its child "Pane"
 *   none            behave (the default)
 * The option `gate` names a file: while it exists, encode_object waits
 * (so a test can act in the middle of a save). Each object's state holds
 * `saves` and `listings`, the list_objects calls of the walk so far. */
#include <restored/plugin.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    const restored_host_functions *host;
    restored_host_context *context;
    char fault[32];
    char gate[4096];
    char main_object;
    char pane_object;
    char extra_object;
    int64_t saves;
    int64_t listings;
} app;

static restored_string text(const char *s) { return (restored_string){ s, strlen(s) }; }

static void copy_option(char *target, size_t size, restored_string value) {
    size_t n = value.length < size - 1 ? value.length : size - 1;
    memcpy(target, value.data, n);
    target[n] = 0;
}

static void *create(const restored_plugin_descriptor *d, const restored_host_functions *host,
                    restored_host_context *context, const restored_option *options, size_t count) {
    app *the_app = calloc(1, sizeof *the_app);
    (void)d;
    if (!the_app) return NULL;
    the_app->host = host;
    the_app->context = context;
    strcpy(the_app->fault, "none");
    for (size_t i = 0; i < count; i++) {
        if (options[i].key.length == 5 && memcmp(options[i].key.data, "fault", 5) == 0)
            copy_option(the_app->fault, sizeof the_app->fault, options[i].value);
        if (options[i].key.length == 4 && memcmp(options[i].key.data, "gate", 4) == 0)
            copy_option(the_app->gate, sizeof the_app->gate, options[i].value);
    }
    if (strcmp(the_app->fault, "abort-create") == 0) abort();
    return the_app;
}
static void destroy(void *instance) { free(instance); }
static void end_walk(void *instance) { ((app *)instance)->listings = 0; }

static restored_status should_save(void *instance, restored_coder *coder, bool *result) {
    (void)instance; (void)coder; *result = true; return RESTORED_OK;
}
static restored_status report(app *a, restored_object_sink *sink) {
    restored_object_info info = { .struct_size = sizeof info, .identifier = text("Main"),
                                  .class_name = text("FaultyWindow"), .restoration_class = text("") };
    return a->host->sink_add(sink, (restored_object *)&a->main_object, &info);
}
static restored_status list_objects(void *instance, restored_object *parent, restored_object_sink *sink) {
    app *a = instance;
    a->listings++;
    if (!parent) return report(a, sink);
    if (parent == (restored_object *)&a->main_object && strcmp(a->fault, "tree-unlisted") == 0) {
        restored_object_info info = { .struct_size = sizeof info, .identifier = text("Pane"),
                                      .class_name = text("FaultyPane"), .restoration_class = text("") };
        return a->host->sink_add(sink, (restored_object *)&a->pane_object, &info);
    }
    return RESTORED_OK;
}
static restored_status list_tree(void *instance, restored_object_sink *sink) {
    app *a = instance;
    restored_object_info info = { .struct_size = sizeof info, .identifier = text("Main"),
                                  .class_name = text("FaultyWindow"), .restoration_class = text("") };
    if (strcmp(a->fault, "tree-unlisted") == 0) info.flags = RESTORED_OBJECT_CHILDREN_UNLISTED;
    restored_status status = a->host->tree_add(sink, RESTORED_TREE_ROOT, (restored_object *)&a->main_object, &info);
    if (status != RESTORED_OK) return status;
    restored_object_info extra = { .struct_size = sizeof extra, .identifier = text("Extra"),
                                   .class_name = text("FaultyPane"), .restoration_class = text("") };
    if (strcmp(a->fault, "tree-fails") == 0) {
        a->host->tree_add(sink, 0, (restored_object *)&a->extra_object, &extra);
        a->host->set_error(a->context, text("the tree could not be listed"));
        return RESTORED_ERROR_FAILED;
    }
    if (strcmp(a->fault, "tree-bad-parent") == 0) {
        restored_object_info ghost = { .struct_size = sizeof ghost, .identifier = text("Ghost"),
                                       .class_name = text("FaultyPane"), .restoration_class = text("") };
        a->host->tree_add(sink, 7, (restored_object *)&a->pane_object, &ghost);
        a->host->tree_add(sink, 0, (restored_object *)&a->extra_object, &extra);
    }
    if (strcmp(a->fault, "tree-sink-add") == 0)
        a->host->sink_add(sink, (restored_object *)&a->extra_object, &extra);
    return RESTORED_OK;
}
static restored_status describe_object(void *instance, restored_object *object, restored_object_sink *sink) {
    (void)object; return report(instance, sink);
}
static restored_status encode_object(void *instance, restored_object *object, restored_coder *coder) {
    app *a = instance; (void)object;
    while (a->gate[0] && access(a->gate, F_OK) == 0) usleep(10000);
    if (strcmp(a->fault, "segfault") == 0) {
        volatile int *nothing = NULL;
        *nothing = 1;
    } else if (strcmp(a->fault, "loop") == 0) {
        for (volatile unsigned long spin = 0;; spin++) {}
    } else if (strcmp(a->fault, "exit") == 0) {
        exit(0);
    } else if (strcmp(a->fault, "leak") == 0) {
        for (;;) {
            char *block = malloc(16 << 20);
            if (!block) abort();
            memset(block, 1, 16 << 20);
        }
    } else if (strcmp(a->fault, "garbage") == 0) {
        static const unsigned char garbage[] = { 0xff, 0xff, 0xff, 0x7f, 0x83, 'n', 'o', 'i', 's', 'e' };
        ssize_t ignored = write(3, garbage, sizeof garbage);
        (void)ignored;
        for (;;) pause();
    }
    a->saves++;
    restored_value value = { .type = RESTORED_VALUE_INT64, .as.int64 = a->saves };
    restored_status status = a->host->encode_value(coder, text("saves"), &value);
    if (status != RESTORED_OK) return status;
    restored_value listings = { .type = RESTORED_VALUE_INT64, .as.int64 = a->listings };
    return a->host->encode_value(coder, text("listings"), &listings);
}
static restored_status object_from_delegate(void *instance, const restored_path *path, restored_coder *coder,
                                            restored_object **result) {
    app *a = instance;
    (void)path; (void)coder;
    *result = NULL;
    if (strcmp(a->fault, "delegate-fails") == 0) {
        a->host->set_error(a->context, text("the delegate could not look"));
        return RESTORED_ERROR_FAILED;
    }
    if (strcmp(a->fault, "registry-fails-silently") == 0)
        a->host->set_error(a->context, text("a message from a call that succeeded"));
    return RESTORED_OK;
}
static restored_status registered_object(void *instance, const restored_path *path, restored_object **result) {
    app *a = instance;
    if (strcmp(a->fault, "registry-fails") == 0) {
        *result = NULL;
        a->host->set_error(a->context, text("the registry could not look"));
        return RESTORED_ERROR_FAILED;
    }
    if (strcmp(a->fault, "registry-fails-silently") == 0) {
        *result = NULL;
        return RESTORED_ERROR_FAILED;
    }
    *result = path->count == 1 ? (restored_object *)&a->main_object : NULL;
    return RESTORED_OK;
}
static restored_status object_from_class(void *instance, restored_string name, const restored_path *path,
                                         restored_coder *coder, restored_object **result) {
    (void)instance; (void)name; (void)path; (void)coder; *result = NULL; return RESTORED_OK;
}
static restored_status restore_identity(void *i, restored_object *o, restored_string id, restored_string c) {
    (void)i; (void)o; (void)id; (void)c; return RESTORED_OK;
}
static restored_status decode_object(void *instance, restored_object *object, restored_coder *coder) {
    app *a = instance; (void)object;
    restored_value value;
    if (a->host->decode_value(coder, text("saves"), &value) == RESTORED_OK && value.type == RESTORED_VALUE_INT64)
        a->saves = value.as.int64;
    if (strcmp(a->fault, "segfault") == 0) {
        volatile int *nothing = NULL;
        *nothing = 1;
    }
    return RESTORED_OK;
}

static const restored_plugin_descriptor descriptor = {
    .abi_version = RESTORED_PLUGIN_ABI_VERSION, .struct_size = sizeof descriptor,
    .app_id = "org.restored.test.Faulty", .app_version = "1.0", .display_name = "Faulty (test)",
    .create = create, .destroy = destroy, .end_walk = end_walk,
    .should_save_application_state = should_save, .list_objects = list_objects,
    .encode_object = encode_object, .object_from_restoration_class = object_from_class,
    .object_from_delegate = object_from_delegate,
    .registered_object = registered_object, .describe_object = describe_object,
    .restore_identity = restore_identity, .decode_object = decode_object,
    .list_tree = list_tree,
};

const restored_plugin_descriptor *restored_plugin_v1(void) { return &descriptor; }
