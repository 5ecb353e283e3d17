#ifndef C_RESTORED_DBUS_SHIM_H
#define C_RESTORED_DBUS_SHIM_H
#include <dbus/dbus.h>
#endif
