/*
 * Example plugin in C: a counter app (org.example.Counter), written against
 * <restored/plugin.h> alone.
 *
 * The "live app" is a text file named by the option `live-state`:
 *
 *     title=Counter
 *     geometry=10,20,300,200
 *     count=42
 *     step=2
 *
 * Its object tree is a window "Main" (it exists when the app starts, so it is
 * found as a registered object, R8 step 3) holding a view "Counter" that is
 * recreated by the restoration class "CounterView" (R8 step 1). Preservation
 * reads the file; restoration writes it back.
 */
#include <restored/plugin.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct counter_app {
    const restored_host_functions *host;
    restored_host_context *context;
    char live_path[4096];
    char title[256];
    int64_t geometry[4];
    int64_t count;
    int64_t step;
    /* Object handles are the addresses of these tags. */
    char window;
    char counter;
} counter_app;

static restored_string text(const char *string) {
    restored_string result = { string, strlen(string) };
    return result;
}

static bool text_equals(restored_string string, const char *expected) {
    return string.length == strlen(expected) && memcmp(string.data, expected, string.length) == 0;
}

static void fail(counter_app *app, const char *message) {
    app->host->set_error(app->context, text(message));
}

static void load_live_state(counter_app *app) {
    FILE *file = fopen(app->live_path, "r");
    if (!file) return;
    char line[512];
    while (fgets(line, sizeof line, file)) {
        line[strcspn(line, "\n")] = 0;
        if (strncmp(line, "title=", 6) == 0) {
            snprintf(app->title, sizeof app->title, "%s", line + 6);
        } else if (strncmp(line, "geometry=", 9) == 0) {
            sscanf(line + 9, "%" SCNd64 ",%" SCNd64 ",%" SCNd64 ",%" SCNd64,
                   &app->geometry[0], &app->geometry[1], &app->geometry[2], &app->geometry[3]);
        } else if (strncmp(line, "count=", 6) == 0) {
            app->count = strtoll(line + 6, NULL, 10);
        } else if (strncmp(line, "step=", 5) == 0) {
            app->step = strtoll(line + 5, NULL, 10);
        }
    }
    fclose(file);
}

static int save_live_state(counter_app *app) {
    FILE *file = fopen(app->live_path, "w");
    if (!file) return -1;
    fprintf(file, "title=%s\ngeometry=%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 "\ncount=%" PRId64 "\nstep=%" PRId64 "\n",
            app->title, app->geometry[0], app->geometry[1], app->geometry[2], app->geometry[3], app->count, app->step);
    return fclose(file);
}

static void *create(const restored_plugin_descriptor *descriptor, const restored_host_functions *host,
                    restored_host_context *context, const restored_option *options, size_t option_count) {
    (void)descriptor;
    counter_app *app = calloc(1, sizeof *app);
    if (!app) return NULL;
    app->host = host;
    app->context = context;
    snprintf(app->title, sizeof app->title, "Counter");
    app->step = 1;
    for (size_t i = 0; i < option_count; i++) {
        if (text_equals(options[i].key, "live-state") && options[i].value.length < sizeof app->live_path) {
            memcpy(app->live_path, options[i].value.data, options[i].value.length);
        }
    }
    if (app->live_path[0] == 0) {
        host->set_error(context, text("the option live-state (the counter's state file) is missing"));
        free(app);
        return NULL;
    }
    load_live_state(app);
    return app;
}

static void destroy(void *instance) { free(instance); }

static void end_walk(void *instance) { (void)instance; }

static restored_status report(counter_app *app, restored_object_sink *sink, restored_object *object) {
    restored_object_info info = { .struct_size = sizeof info };
    if (object == (restored_object *)&app->window) {
        info.identifier = text("Main");
        info.class_name = text("CounterWindow");
        info.restoration_class = text("");
        info.flags = RESTORED_OBJECT_DEFINES_PRESENTATION_CONTEXT;
    } else {
        info.identifier = text("Counter");
        info.class_name = text("CounterView");
        info.restoration_class = text("CounterView");
    }
    return app->host->sink_add(sink, object, &info);
}

static restored_status should_save(void *instance, restored_coder *coder, bool *result) {
    (void)coder;
    /* The app may have changed since the last save (a daemon saves many
     * times): read its state now. */
    load_live_state(instance);
    *result = true;
    return RESTORED_OK;
}

static restored_status list_objects(void *instance, restored_object *parent, restored_object_sink *sink) {
    counter_app *app = instance;
    if (parent == NULL) return report(app, sink, (restored_object *)&app->window);
    if (parent == (restored_object *)&app->window) return report(app, sink, (restored_object *)&app->counter);
    return RESTORED_OK;
}

static restored_status encode_object(void *instance, restored_object *object, restored_coder *coder) {
    counter_app *app = instance;
    const restored_host_functions *host = app->host;
    restored_value value = {0};
    restored_status status;
    if (object == (restored_object *)&app->window) {
        value.type = RESTORED_VALUE_STRING;
        value.as.string = text(app->title);
        if ((status = host->encode_value(coder, text("title"), &value)) != RESTORED_OK) return status;
        restored_value corners[4];
        for (int i = 0; i < 4; i++) {
            corners[i] = (restored_value){ .type = RESTORED_VALUE_INT64, .as.int64 = app->geometry[i] };
        }
        value = (restored_value){ .type = RESTORED_VALUE_ARRAY, .as.array = { corners, 4 } };
        return host->encode_value(coder, text("geometry"), &value);
    }
    value = (restored_value){ .type = RESTORED_VALUE_INT64, .as.int64 = app->count };
    if ((status = host->encode_value(coder, text("count"), &value)) != RESTORED_OK) return status;
    value = (restored_value){ .type = RESTORED_VALUE_INT64, .as.int64 = app->step };
    return host->encode_value(coder, text("step"), &value);
}

static restored_status take_snapshot(void *instance, restored_snapshot_sink *sink) {
    counter_app *app = instance;
    char preview[64];
    int length = snprintf(preview, sizeof preview, "%s: %" PRId64, app->title, app->count);
    if (length < 0) return RESTORED_ERROR_FAILED;
    /* snprintf returns the length it wanted: hand over only what is in the buffer. */
    size_t size = (size_t)length < sizeof preview ? (size_t)length : sizeof preview - 1;
    return app->host->snapshot_set(sink, text("text/plain; charset=utf-8"), preview, size);
}

static restored_status should_restore(void *instance, restored_coder *coder, bool *result) {
    counter_app *app = instance;
    restored_value version;
    /* Restore only archives written by this app (any version has the key). */
    *result = app->host->decode_value(coder, text("restored.appVersion"), &version) == RESTORED_OK;
    return RESTORED_OK;
}

static restored_status object_from_restoration_class(void *instance, restored_string restoration_class,
                                                     const restored_path *path, restored_coder *coder,
                                                     restored_object **result) {
    counter_app *app = instance;
    (void)path; (void)coder;
    *result = text_equals(restoration_class, "CounterView") ? (restored_object *)&app->counter : NULL;
    return RESTORED_OK;
}

static restored_status registered_object(void *instance, const restored_path *path, restored_object **result) {
    counter_app *app = instance;
    *result = NULL;
    if (path->count == 1 && text_equals(path->components[0].identifier, "Main")) {
        *result = (restored_object *)&app->window;
    }
    return RESTORED_OK;
}

static restored_status describe_object(void *instance, restored_object *object, restored_object_sink *sink) {
    return report(instance, sink, object);
}

static restored_status restore_identity(void *instance, restored_object *object, restored_string identifier,
                                        restored_string restoration_class) {
    /* This app's identifiers are fixed; nothing to store. */
    (void)instance; (void)object; (void)identifier; (void)restoration_class;
    return RESTORED_OK;
}

static restored_status decode_int(counter_app *app, restored_coder *coder, const char *key, int64_t *target) {
    restored_value value;
    restored_status status = app->host->decode_value(coder, text(key), &value);
    if (status == RESTORED_ERROR_NOT_FOUND) return RESTORED_OK;
    if (status != RESTORED_OK) return status;
    if (value.type != RESTORED_VALUE_INT64) {
        fail(app, "a counter value is not an integer");
        return RESTORED_ERROR_FAILED;
    }
    *target = value.as.int64;
    return RESTORED_OK;
}

static restored_status decode_object(void *instance, restored_object *object, restored_coder *coder) {
    counter_app *app = instance;
    restored_value value;
    if (object == (restored_object *)&app->window) {
        if (app->host->decode_value(coder, text("title"), &value) == RESTORED_OK && value.type == RESTORED_VALUE_STRING) {
            size_t length = value.as.string.length < sizeof app->title - 1 ? value.as.string.length : sizeof app->title - 1;
            memcpy(app->title, value.as.string.data, length);
            app->title[length] = 0;
        }
        if (app->host->decode_value(coder, text("geometry"), &value) == RESTORED_OK && value.type == RESTORED_VALUE_ARRAY
            && value.as.array.count == 4) {
            for (int i = 0; i < 4; i++) {
                if (value.as.array.items[i].type == RESTORED_VALUE_INT64) app->geometry[i] = value.as.array.items[i].as.int64;
            }
        }
        return RESTORED_OK;
    }
    restored_status status = decode_int(app, coder, "count", &app->count);
    if (status != RESTORED_OK) return status;
    return decode_int(app, coder, "step", &app->step);
}

static restored_status restoration_did_finish(void *instance) {
    counter_app *app = instance;
    if (save_live_state(app) != 0) {
        fail(app, "the counter's state file could not be written");
        return RESTORED_ERROR_FAILED;
    }
    app->host->log(app->context, RESTORED_LOG_INFO, text("counter restored"));
    return RESTORED_OK;
}

static const restored_plugin_descriptor counter_descriptor = {
    .abi_version = RESTORED_PLUGIN_ABI_VERSION,
    .struct_size = sizeof(restored_plugin_descriptor),
    .app_id = "org.example.Counter",
    .app_version = "1.0",
    .display_name = "Counter (C example)",
    .create = create,
    .destroy = destroy,
    .end_walk = end_walk,
    .should_save_application_state = should_save,
    .list_objects = list_objects,
    .encode_object = encode_object,
    .take_snapshot = take_snapshot,
    .should_restore_application_state = should_restore,
    .object_from_restoration_class = object_from_restoration_class,
    .registered_object = registered_object,
    .describe_object = describe_object,
    .restore_identity = restore_identity,
    .decode_object = decode_object,
    .restoration_did_finish = restoration_did_finish,
};

const restored_plugin_descriptor *restored_plugin_v1(void) {
    return &counter_descriptor;
}
