/*
 * The runtime record of the image this object is linked into
 * (restored/runtime_record.h). `used` and `retain` keep it when the linker
 * drops sections nothing refers to (a release build's dead stripping).
 */
#include "restored/runtime_record.h"

__attribute__((used, retain, section(".note.restored.runtime"), aligned(4), visibility("hidden")))
const restored_runtime_note c_restored_runtime_record = {
    .name_size = sizeof("restored"),
    .description_size = sizeof(RESTORED_RUNTIME_RECORD_TEXT),
    .type = RESTORED_RUNTIME_NOTE_TYPE,
    .name = "restored",
    .description = RESTORED_RUNTIME_RECORD_TEXT,
};
