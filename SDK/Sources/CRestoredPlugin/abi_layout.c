/*
 * Compiles restored/plugin.h once so that its _Static_assert layout checks
 * run at build time, and gives the C target a translation unit.
 */
#include "restored/plugin.h"

/** The ABI version this build of the header describes. */
const uint32_t restored_plugin_header_abi_version = RESTORED_PLUGIN_ABI_VERSION;
