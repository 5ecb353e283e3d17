/*
 * restored/plugin.h - the plugin ABI of restored, version 1.
 *
 * A plugin is a shared object that exports one function:
 *
 *     const restored_plugin_descriptor *restored_plugin_v1(void);
 *
 * It returns a descriptor that lives as long as the shared object. The host
 * (the restored daemon, or any program that speaks this ABI) checks the
 * descriptor, then creates one plugin *instance* per app session with
 * `create`, and drives preservation and restoration through the callbacks.
 * The plugin talks back to the host through the function table it receives
 * in `create`.
 *
 * Rules of this ABI:
 *  - Only C types and bytes cross it. Strings are UTF-8 with an explicit
 *    length (`restored_string`); they are not NUL-terminated unless said so.
 *  - Both tables start with their size. A table only ever grows at its end:
 *    a field exists when the table's `struct_size` covers it. A host refuses a
 *    descriptor whose `abi_version` is not RESTORED_PLUGIN_ABI_VERSION.
 *  - Callbacks that can fail return a `restored_status`. A plugin that fails
 *    may first call `host->set_error` with a message for the user.
 *  - Every callback is called from one thread at a time per instance.
 *  - Object handles (`restored_object *`) are the plugin's. A handle the
 *    plugin gives the host stays valid until the host calls `end_walk`.
 *  - Everything the host hands to a callback (strings, coders, values, paths)
 *    is valid only during that call unless documented otherwise.
 *
 * The restoration rules R1-R16 these callbacks implement are described in
 * restored's docs/archive.md ("The rules it follows").
 */
#ifndef RESTORED_PLUGIN_H
#define RESTORED_PLUGIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The ABI version this header describes. */
#define RESTORED_PLUGIN_ABI_VERSION 1u

/** The name of the symbol a plugin exports. */
#define RESTORED_PLUGIN_SYMBOL "restored_plugin_v1"

/** Result of a callback or a host function. */
typedef int32_t restored_status;

/** Success. */
#define RESTORED_OK 0
/** Generic failure; see the message set with `set_error`. */
#define RESTORED_ERROR_FAILED (-1)
/** A coder key starts with the reserved prefix "restored.". */
#define RESTORED_ERROR_RESERVED_KEY (-2)
/** A decoded key does not exist in the container. */
#define RESTORED_ERROR_NOT_FOUND (-3)
/** An argument is malformed (bad UTF-8, unknown value type, NULL). */
#define RESTORED_ERROR_INVALID_ARGUMENT (-4)
/** The call is not allowed at this point of the walk. */
#define RESTORED_ERROR_WRONG_PHASE (-5)
/** The object's or the app's byte budget is exhausted (R13). */
#define RESTORED_ERROR_BUDGET_EXCEEDED (-6)
/** A referenced object is unknown to the host or has no identifier. */
#define RESTORED_ERROR_UNKNOWN_OBJECT (-7)

/** A UTF-8 string with its length in bytes. */
typedef struct restored_string {
    const char *data;
    size_t length;
} restored_string;

/** One component of a restoration path. */
typedef struct restored_path_component {
    /** The object's restoration identifier. */
    restored_string identifier;
    /**
     * The position a disambiguating container gave this child (R3), or -1
     * when the identifier alone names the object.
     */
    int64_t position;
} restored_path_component;

/** A restoration path: identifiers from the root to the object. */
typedef struct restored_path {
    const restored_path_component *components;
    size_t count;
} restored_path;

/** An object of the plugin (a window, a pane, a list...). Opaque to the host. */
typedef struct restored_object restored_object;

/** A keyed container owned by the host: one per object and one per app (R5). */
typedef struct restored_coder restored_coder;

/** Where a plugin reports objects during a walk. Owned by the host. */
typedef struct restored_object_sink restored_object_sink;

/** Where a plugin hands over its snapshot. Owned by the host. */
typedef struct restored_snapshot_sink restored_snapshot_sink;

/** The host's context of one plugin instance. Opaque to the plugin. */
typedef struct restored_host_context restored_host_context;

/** The kinds of value a coder holds (R16: only these, never a type by name). */
typedef enum restored_value_type {
    RESTORED_VALUE_BOOL = 1,
    RESTORED_VALUE_INT64 = 2,
    RESTORED_VALUE_UINT64 = 3,
    RESTORED_VALUE_DOUBLE = 4,
    RESTORED_VALUE_STRING = 5,
    RESTORED_VALUE_BYTES = 6,
    /** A point in time: seconds since 1970-01-01 00:00:00 UTC, in `as.float64`. */
    RESTORED_VALUE_DATE = 7,
    RESTORED_VALUE_ARRAY = 8,
    /** String keys and values, in `as.dictionary`. */
    RESTORED_VALUE_DICTIONARY = 9,
    /**
     * A reference to another restorable object, stored by its path. When
     * encoding, `as.object` is the plugin's handle. When decoding,
     * `as.reference.object` is the handle the host located for that path at
     * restoration (NULL when that object was not restored) and
     * `as.reference.path` its path.
     */
    RESTORED_VALUE_OBJECT = 10
} restored_value_type;

/** A typed value. Arrays and dictionaries nest. */
typedef struct restored_value {
    /** A restored_value_type. */
    uint32_t type;
    uint32_t reserved;
    union {
        bool boolean;
        int64_t int64;
        uint64_t uint64;
        double float64;
        restored_string string;
        struct {
            const void *data;
            size_t length;
        } bytes;
        struct {
            const struct restored_value *items;
            size_t count;
        } array;
        struct {
            const restored_string *keys;
            const struct restored_value *values;
            size_t count;
        } dictionary;
        restored_object *object;
        struct {
            restored_object *object;
            const restored_path *path;
        } reference;
    } as;
} restored_value;

/** Log levels for `host->log`, with syslog's numbers. */
typedef enum restored_log_level {
    RESTORED_LOG_ERROR = 3,
    RESTORED_LOG_WARNING = 4,
    RESTORED_LOG_NOTICE = 5,
    RESTORED_LOG_INFO = 6,
    RESTORED_LOG_DEBUG = 7
} restored_log_level;

/** Flags a plugin may set on the archive being written. */
typedef enum restored_archive_flag {
    /** R12: do not hand the snapshot over at the next restoration. */
    RESTORED_FLAG_IGNORE_SNAPSHOT_ON_NEXT_LAUNCH = 1u << 0
} restored_archive_flag;

/**
 * Why a preservation walk runs (`host->save_occasion`). More may come: treat
 * an unknown value as RESTORED_SAVE_REQUEST.
 */
typedef enum restored_save_occasion {
    /** `restored-ctl save`: the user asked. */
    RESTORED_SAVE_REQUEST = 1,
    /** The periodic autosave. */
    RESTORED_SAVE_AUTOSAVE = 2,
    /** The machine is about to suspend. */
    RESTORED_SAVE_SUSPEND = 3,
    /** The machine is about to shut down or reboot. */
    RESTORED_SAVE_SHUTDOWN = 4,
    /**
     * The user's session ends (logout). With RESTORED_SAVE_SHUTDOWN: apps die
     * around this save, so a plugin that finds its app gone may decline, and
     * the host keeps the last archive instead of discarding it (R6).
     */
    RESTORED_SAVE_SESSION_END = 5,
    /** restored stops while the session goes on (an upgrade, a restart). */
    RESTORED_SAVE_DAEMON_STOP = 6
} restored_save_occasion;

/**
 * Why a restoration walk runs (`host->restore_reason`), as GTK's
 * GtkRestoreReason has it. More may come: treat an unknown value as
 * RESTORED_RESTORE_REQUEST.
 */
typedef enum restored_restore_reason {
    /** The session starts (login after logout, reboot, power loss): the app is not running. */
    RESTORED_RESTORE_SESSION = 1,
    /**
     * restored started again while the session runs: the app is live. Only
     * plugins with RESTORED_PLUGIN_RESTORES_INTO_RUNNING_APP are restored then.
     */
    RESTORED_RESTORE_RECOVERY = 2,
    /** `restored-ctl restore`: the user asked. */
    RESTORED_RESTORE_REQUEST = 3
} restored_restore_reason;

/**
 * A plugin's answer to R6's question, "save now?", through the descriptor's
 * `save_decision` (beside `should_save_application_state`'s yes and no).
 */
typedef enum restored_save_decision {
    /** Save: the walk goes on and the archive is written. */
    RESTORED_SAVE_DECISION_SAVE = 1,
    /**
     * Decline: nothing is written and, in a session that goes on, the last
     * archive is discarded as stale (the user closed the app).
     */
    RESTORED_SAVE_DECISION_DECLINE = 2,
    /**
     * Keep what you have: nothing is written and the last archive stays, with
     * no warning (the app is not there to ask right now, and what was saved
     * is still what it would say). restored-ctl apps shows "kept".
     */
    RESTORED_SAVE_DECISION_KEEP = 3
} restored_save_decision;

/** What a plugin declares of itself, in `restored_plugin_descriptor.traits`. */
typedef enum restored_plugin_trait {
    /**
     * Its restoration works on a live app (it finds what exists and restores
     * only what is missing), so a RESTORED_RESTORE_RECOVERY walk runs for it.
     * Without it, a restarted restored leaves the app alone.
     */
    RESTORED_PLUGIN_RESTORES_INTO_RUNNING_APP = 1u << 0,
    /**
     * What it restores needs the graphical session (windows): at login its
     * restoration waits until the desktop is there (the user manager's
     * graphical-session.target is active, or its DISPLAY/WAYLAND_DISPLAY
     * reaches a display), and its plugin host then runs with the desktop's
     * display variables.
     */
    RESTORED_PLUGIN_NEEDS_GRAPHICAL_SESSION = 1u << 1
} restored_plugin_trait;

/** Facts about an object, reported with `host->sink_add`. */
typedef enum restored_object_flag {
    /** The object is presented (modal) rather than a child (R4). */
    RESTORED_OBJECT_PRESENTED = 1u << 0,
    /**
     * The object is a presentation context: objects presented by its
     * descendants hang under it (R4). Roots always are.
     */
    RESTORED_OBJECT_DEFINES_PRESENTATION_CONTEXT = 1u << 1,
    /**
     * The object is a container that disambiguates its children by position,
     * as a navigation stack does (R3): each child's path component gets its
     * position, so siblings may share an identifier.
     */
    RESTORED_OBJECT_DISAMBIGUATES_CHILDREN = 1u << 2,
    /**
     * Only in `list_tree`: the object's children and presented objects are
     * not in the tree under this report of it (it is reported at another
     * place of the tree, and they were listed there). Should the host record
     * the object at this place, it asks `list_objects` for them.
     */
    RESTORED_OBJECT_CHILDREN_UNLISTED = 1u << 3
} restored_object_flag;

/** The parent a root is reported with in `list_tree` (`host->tree_add`). */
#define RESTORED_TREE_ROOT 0xFFFFFFFFFFFFFFFFull

/** What a plugin reports about one object. */
typedef struct restored_object_info {
    /** sizeof(restored_object_info) as the plugin knows it. */
    uint32_t struct_size;
    /** restored_object_flag bits. */
    uint32_t flags;
    /** The restoration identifier; empty (length 0) means "not preserved" (R1). */
    restored_string identifier;
    /** The object's class name, recorded for the class check (R10). */
    restored_string class_name;
    /** The restoration class name (R8.1); empty when it has none. */
    restored_string restoration_class;
} restored_object_info;

/** A configuration option the host passes to `create` (key = value). */
typedef struct restored_option {
    restored_string key;
    restored_string value;
} restored_option;

/**
 * The host's function table, version 1. Grows at the end only; check
 * `struct_size` before using a field added later.
 */
typedef struct restored_host_functions {
    uint32_t struct_size;
    uint32_t abi_version;

    /** Logs a message for this instance's app. */
    void (*log)(restored_host_context *context, restored_log_level level, restored_string message);
    /** Sets the message the host reports with the next failing status. */
    void (*set_error)(restored_host_context *context, restored_string message);
    /** Sets or clears an archive flag; only during preservation (R12). */
    restored_status (*set_archive_flag)(restored_host_context *context, uint32_t flag, bool on);

    /**
     * Stores a value under a key (R5: one container per object; keys with the
     * prefix "restored." are refused). The host copies everything.
     */
    restored_status (*encode_value)(restored_coder *coder, restored_string key, const restored_value *value);
    /**
     * Reads the value of a key. The value, and everything it points to, stays
     * valid until the callback that received the coder returns.
     * Returns RESTORED_ERROR_NOT_FOUND for a missing key. Reserved keys
     * ("restored.className", "restored.appVersion"...) can be read.
     */
    restored_status (*decode_value)(restored_coder *coder, restored_string key, restored_value *value);
    /** Whether the container holds the key. */
    bool (*contains_key)(restored_coder *coder, restored_string key);

    /** Reports an object during a walk (roots, children, presented objects). */
    restored_status (*sink_add)(restored_object_sink *sink, restored_object *object, const restored_object_info *info);

    /** Hands over a snapshot: a media type ("image/png", "text/plain") and its bytes (R12). */
    restored_status (*snapshot_set)(restored_snapshot_sink *sink, restored_string media_type, const void *data, size_t length);

    /**
     * Stores many keys at once, as if each were stored with encode_value:
     * `bytes` hold entries in the container wire format (see "The container
     * wire format" below), where an object reference may be written as the
     * tag 0x0C followed by the 8-byte `restored_object *`. The host checks
     * every byte, refuses reserved keys, and copies what it keeps. Swift
     * plugins use this through the SDK; C plugins may too.
     */
    restored_status (*encode_entries)(restored_coder *coder, const void *bytes, size_t length);
    /**
     * Lends the container's entries in the wire format (references as paths),
     * valid until the callback returns. The reserved keys are not among them:
     * read those with decode_value.
     */
    restored_status (*borrow_entries)(restored_coder *coder, const void **bytes, size_t *length);
    /** During restoration, the object the host located for `path`, or NULL (R9). */
    restored_object *(*object_at_path)(restored_coder *coder, const restored_path *path);

    /* Added after the first table: use only when `struct_size` covers them. */

    /** During preservation, why it runs (a restored_save_occasion); 0 otherwise. */
    uint32_t (*save_occasion)(restored_host_context *context);
    /** During restoration, why it runs (a restored_restore_reason); 0 otherwise. */
    uint32_t (*restore_reason)(restored_host_context *context);

    /**
     * During a walk (a save or a restore), the milliseconds left before the
     * host is stopped: bound every wait for the app by it. UINT64_MAX when
     * the walk has no deadline, and outside a walk.
     */
    uint64_t (*walk_time_left)(restored_host_context *context);
    /**
     * During preservation, from `encode_object` only: the object this coder
     * encodes is carried over from the app's last archive, with its subtree,
     * as they were saved there (the app could not say its state now, for
     * example an instance that did not answer). Values encoded into this
     * coder are dropped and its children are not walked. restored keeps the
     * time the carried state was saved, and leaves the object out (the save
     * is partial) when the last archive has none. RESTORED_ERROR_WRONG_PHASE
     * from any other callback.
     */
    restored_status (*carry_over)(restored_coder *coder);
    /**
     * During `list_tree` only: reports `object` under the object reported
     * `parent`-th in this call (counting from 0), or as a root with
     * RESTORED_TREE_ROOT. A parent must be reported before its children.
     * RESTORED_ERROR_INVALID_ARGUMENT for a parent not reported yet, a NULL
     * object or info, an info smaller than version 1's or not UTF-8;
     * RESTORED_ERROR_WRONG_PHASE on a sink of `list_objects` or
     * `describe_object` (and `sink_add` on the sink of `list_tree` is
     * refused the same way). After one refusal every later report is
     * refused too, and the host lists the tree with `list_objects`, as when
     * `list_tree` fails: the report numbers after a lost report would name
     * the wrong parents.
     */
    restored_status (*tree_add)(restored_object_sink *sink, uint64_t parent, restored_object *object,
                                const restored_object_info *info);
} restored_host_functions;

/*
 * The container wire format (used by encode_entries and borrow_entries).
 * All integers are little-endian; varints are unsigned LEB128.
 *
 *   container = entry*                 entry = key value
 *   key       = varint(length) UTF-8   value = tag payload
 *
 *   0x01 / 0x02  false / true   (no payload)
 *   0x03  int64     zigzag varint
 *   0x04  uint64    varint
 *   0x05  double    8 bytes IEEE 754
 *   0x06  string    varint(length) UTF-8
 *   0x07  bytes     varint(length) bytes
 *   0x08  date      8 bytes IEEE 754, seconds since 1970-01-01 UTC
 *   0x09  array     u32(byte length) varint(count) value*
 *   0x0A  dictionary u32(byte length) varint(count) (key value)*
 *   0x0B  reference u32(byte length) varint(count) (varint(length) UTF-8 varint(position + 1, or 0))*
 *   0x0C  object    8 bytes restored_object * (only from a plugin, in encode_entries)
 *
 * A key written twice reads as its last value. Values nest at most 64 deep.
 */

/**
 * The plugin's descriptor, version 1: what `restored_plugin_v1()` returns.
 * Callbacks marked optional may be NULL; a host refuses a plugin that lacks
 * any other (create, destroy, end_walk, should_save_application_state,
 * list_objects, object_from_restoration_class, registered_object,
 * describe_object, restore_identity).
 *
 * Callbacks may nest in one way: while the plugin is inside encode_value or
 * encode_entries with a reference to an object outside the preserved tree,
 * the host calls describe_object and list_objects on the same instance to
 * save that object by hand (R14).
 */
typedef struct restored_plugin_descriptor {
    /** RESTORED_PLUGIN_ABI_VERSION. */
    uint32_t abi_version;
    /** sizeof(restored_plugin_descriptor) as the plugin knows it. */
    uint32_t struct_size;
    /** The freedesktop application id this plugin restores, NUL-terminated. */
    const char *app_id;
    /** The app's version, NUL-terminated, recorded in the archive. */
    const char *app_version;
    /** A name for people, NUL-terminated. */
    const char *display_name;

    /**
     * Creates an instance of the app described by `descriptor` (the pointer
     * `restored_plugin_v1()` returned; one shared implementation may serve
     * several descriptors). `host` and `context` stay valid until `destroy`.
     * `options` are the app's configuration (for example where its live
     * state is). Returns NULL on failure (after `host->set_error`).
     */
    void *(*create)(const struct restored_plugin_descriptor *descriptor, const restored_host_functions *host,
                    restored_host_context *context, const restored_option *options, size_t option_count);
    /** Destroys an instance. */
    void (*destroy)(void *instance);
    /** Releases every handle handed out since the last call (end of a walk). */
    void (*end_walk)(void *instance);

    /* Preservation (R1-R6, R12-R14). */

    /** R6: whether to save at all. `app_coder` holds the reserved keys. */
    restored_status (*should_save_application_state)(void *instance, restored_coder *app_coder, bool *result);
    /** R6: app-wide state, at the start of preservation (R14 manual saves go here). Optional. */
    restored_status (*will_encode_restorable_state)(void *instance, restored_coder *app_coder);
    /** Reports the children and presented objects of `parent`, or the roots when `parent` is NULL. */
    restored_status (*list_objects)(void *instance, restored_object *parent, restored_object_sink *sink);
    /** Encodes one object's state into its own coder (R5). Optional. */
    restored_status (*encode_object)(void *instance, restored_object *object, restored_coder *coder);
    /** R12: called before the snapshot is taken, so sensitive content can be redacted. Optional. */
    restored_status (*will_take_snapshot)(void *instance);
    /** R12: hands over a snapshot with `host->snapshot_set`, or nothing. Optional. */
    restored_status (*take_snapshot)(void *instance, restored_snapshot_sink *sink);

    /* Restoration (R7-R12, R15, R16). */

    /** R7: whether to restore. `app_coder` holds the app state and the reserved keys. Optional: NULL restores. */
    restored_status (*should_restore_application_state)(void *instance, restored_coder *app_coder, bool *result);
    /** R12: shows the saved snapshot until the app is back. Not called when the archive says to ignore it. Optional. */
    restored_status (*present_snapshot)(void *instance, restored_string media_type, const void *data, size_t length);
    /** R8 step 1: asks the restoration class for the object; *result NULL = do not restore it or its subtree. */
    restored_status (*object_from_restoration_class)(void *instance, restored_string restoration_class,
                                                     const restored_path *path, restored_coder *coder,
                                                     restored_object **result);
    /** R8 step 2: asks the delegate for an object without restoration class; *result NULL = keep looking. Optional. */
    restored_status (*object_from_delegate)(void *instance, const restored_path *path, restored_coder *coder,
                                            restored_object **result);
    /** R8 step 3: an object the plugin registered under exactly this path, or NULL. */
    restored_status (*registered_object)(void *instance, const restored_path *path, restored_object **result);
    /** Reports one object's info through the sink (used for the class check, R10). */
    restored_status (*describe_object)(void *instance, restored_object *object, restored_object_sink *sink);
    /** R8: gives a recreated object its identifier and restoration class back. */
    restored_status (*restore_identity)(void *instance, restored_object *object, restored_string identifier,
                                        restored_string restoration_class);
    /** R9 phase 2: decodes one object's state. Optional. */
    restored_status (*decode_object)(void *instance, restored_object *object, restored_coder *coder);
    /** R9: called on every restored object once all are decoded. Optional. */
    restored_status (*finished_restoring_state)(void *instance, restored_object *object);
    /** R9: app-wide state, after the objects. Optional. */
    restored_status (*did_decode_restorable_state)(void *instance, restored_coder *app_coder);
    /** R9: the very end of restoration. Optional. */
    restored_status (*restoration_did_finish)(void *instance);

    /* Added after the first table: a host reads them only when `struct_size` covers them. */

    /** restored_plugin_trait bits; 0 for none. */
    uint32_t traits;
    /**
     * R6 with three answers (a restored_save_decision in *decision). Optional:
     * when it is set, the host calls it instead of
     * should_save_application_state (which a plugin still provides, for
     * hosts older than this field).
     */
    restored_status (*save_decision)(void *instance, restored_coder *app_coder, uint32_t *decision);
    /**
     * R1-R4: reports the whole tree in one call, each object with
     * `host->tree_add` (its parent's report number, or RESTORED_TREE_ROOT),
     * instead of one `list_objects` call per object. Optional: without it,
     * or from a host older than this field, the host calls `list_objects`
     * (which a plugin still provides: the host lists objects saved by hand,
     * R14, and the children of objects reported with
     * RESTORED_OBJECT_CHILDREN_UNLISTED, through it).
     *
     * Report an object's children in their order, then its presented
     * objects (flag RESTORED_OBJECT_PRESENTED), as list_objects would; the
     * subtree of an object without identifier may be left out, as the host
     * does not save it (R1, R2). An object that appears at more than one
     * place must be reported with its subtree at most at one; at every
     * other place it must carry RESTORED_OBJECT_CHILDREN_UNLISTED (then the
     * host may ask list_objects for its children), or its subtree must be
     * reported there again. That is how a cycle ends: a tree has none, and
     * the host saves an object once (R2). When list_tree fails, the host
     * forgets what it reported, lists the tree with list_objects, and calls
     * list_tree no more for this instance.
     */
    restored_status (*list_tree)(void *instance, restored_object_sink *sink);
} restored_plugin_descriptor;

/** The type of the exported function. */
typedef const restored_plugin_descriptor *(*restored_plugin_entry)(void);

/** The function every plugin exports (see RESTORED_PLUGIN_SYMBOL). */
const restored_plugin_descriptor *restored_plugin_v1(void);

/* Compile-time layout checks: these sizes are the ABI (LP64). */
#if defined(__LP64__) && !defined(__cplusplus)
_Static_assert(sizeof(restored_string) == 16, "restored_string layout");
_Static_assert(sizeof(restored_path_component) == 24, "restored_path_component layout");
_Static_assert(sizeof(restored_value) == 32, "restored_value layout");
_Static_assert(sizeof(restored_object_info) == 56, "restored_object_info layout");
_Static_assert(offsetof(restored_host_functions, log) == 8, "restored_host_functions layout");
_Static_assert(offsetof(restored_plugin_descriptor, create) == 32, "restored_plugin_descriptor layout");
/* The first tables end where the added fields begin. */
_Static_assert(offsetof(restored_host_functions, save_occasion) == 96, "restored_host_functions layout");
_Static_assert(offsetof(restored_host_functions, restore_reason) == 104, "restored_host_functions layout");
_Static_assert(offsetof(restored_host_functions, walk_time_left) == 112, "restored_host_functions layout");
_Static_assert(offsetof(restored_host_functions, carry_over) == 120, "restored_host_functions layout");
_Static_assert(offsetof(restored_host_functions, tree_add) == 128, "restored_host_functions layout");
_Static_assert(sizeof(restored_host_functions) == 136, "restored_host_functions layout");
_Static_assert(offsetof(restored_plugin_descriptor, traits) == 192, "restored_plugin_descriptor layout");
_Static_assert(offsetof(restored_plugin_descriptor, save_decision) == 200, "restored_plugin_descriptor layout");
_Static_assert(offsetof(restored_plugin_descriptor, list_tree) == 208, "restored_plugin_descriptor layout");
_Static_assert(sizeof(restored_plugin_descriptor) == 216, "restored_plugin_descriptor layout");
#endif

#ifdef __cplusplus
}
#endif

#endif /* RESTORED_PLUGIN_H */
