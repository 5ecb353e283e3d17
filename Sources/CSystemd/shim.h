#ifndef C_RESTORED_SYSTEMD_SHIM_H
#define C_RESTORED_SYSTEMD_SHIM_H
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>
#endif
