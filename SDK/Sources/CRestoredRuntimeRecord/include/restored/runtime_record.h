/*
 * restored/runtime_record.h: the record of the runtime a Swift plugin was
 * built against.
 *
 * Swift has no stable ABI on Linux: a Swift plugin runs only inside the
 * Swift runtime and the RestorationKit it was built against. The SDK's
 * `RestoredRuntimeRecord` product puts this record into every image that
 * links it, as an ELF note (owner "restored", type RESTORED_RUNTIME_NOTE_TYPE)
 * in an allocated note section, so the plugin host reads it from the file
 * before any of the plugin's code runs, and refuses a plugin of another
 * runtime with one line. The record is text:
 * "restored VERSION; toolchain CLANG-VERSION", where CLANG-VERSION is the
 * version line of the Swift toolchain's clang, which names the toolchain's
 * own LLVM commit. restored's executables carry the same record: it is
 * where they read their own version.
 */
#ifndef RESTORED_RUNTIME_RECORD_H
#define RESTORED_RUNTIME_RECORD_H

#include <stdint.h>

/** The version of restored and of its SDK, `restored --version`. */
#define RESTORED_VERSION "0.3.0"

/** The note's type under the owner "restored". */
#define RESTORED_RUNTIME_NOTE_TYPE 0x52540001u

/** The record's text, with its terminating NUL. */
#define RESTORED_RUNTIME_RECORD_TEXT "restored " RESTORED_VERSION "; toolchain " __clang_version__

/** The note as it lies in the image: an ELF note header, the owner padded
 *  to four bytes, the record padded to four bytes. */
typedef struct restored_runtime_note {
    uint32_t name_size;
    uint32_t description_size;
    uint32_t type;
    char name[12];
    char description[(sizeof(RESTORED_RUNTIME_RECORD_TEXT) + 3u) & ~3u];
} restored_runtime_note;

_Static_assert(sizeof("restored") <= 12, "the owner fits its padded field");
_Static_assert(__builtin_offsetof(restored_runtime_note, name) == 12, "an ELF note header is three words");
_Static_assert(__builtin_offsetof(restored_runtime_note, description) == 24, "the owner is padded to four bytes");

/** This image's record (hidden: every image has its own). */
extern const restored_runtime_note c_restored_runtime_record
    __attribute__((visibility("hidden")));

/** This image's record text: the description of its own note. */
static inline const char *c_restored_runtime_record_text(void) {
    return c_restored_runtime_record.description;
}

#endif
