/* The counter example plugin (org.example.Counter) exports only
 * restored_plugin_v1, declared in <restored/plugin.h>. */
#ifndef RESTORED_EXAMPLE_COUNTER_PLUGIN_H
#define RESTORED_EXAMPLE_COUNTER_PLUGIN_H
#include <restored/plugin.h>
#endif
