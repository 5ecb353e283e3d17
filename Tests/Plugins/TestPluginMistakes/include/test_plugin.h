/* A test plugin: it exports only restored_plugin_v1 (<restored/plugin.h>). */
#ifndef RESTORED_TEST_PLUGIN_H
#define RESTORED_TEST_PLUGIN_H
#include <restored/plugin.h>
#endif
