// C shims of the plugin helper processes: binding a helper to restored's
// life, the callback being run, and the helper's crash report (the spawn
// is CRestoredProcess's). Every exported symbol is prefixed `c_restored_`.
#ifndef C_RESTORED_HOST_SUPPORT_H
#define C_RESTORED_HOST_SUPPORT_H

#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The frame kind of a crash report (see RestoredHostProtocol's HostFrameKind).
#define C_RESTORED_HOST_CRASH_FRAME_KIND 0xEF

/// In the helper: dies with the parent (PR_SET_PDEATHSIG, SIGKILL) and never
/// gains privileges (PR_SET_NO_NEW_PRIVS). Returns 0, or -1 with errno set,
/// or -2 when the parent is no longer `expected_parent` (it died before the
/// death signal was armed: the helper must exit).
int c_restored_host_bind_to_parent(pid_t expected_parent);

/// In the helper: closes every descriptor from `first` up.
void c_restored_close_from(int first);

/// The name of the plugin callback running now (a static string), or NULL:
/// set around every plugin call, read by the crash reporter.
void c_restored_set_current_callback(const char *name);

/// The name set by `c_restored_set_current_callback`, or NULL.
const char *c_restored_current_callback(void);

/// In the helper: on a fatal signal (SEGV, BUS, ILL, FPE, ABRT, TRAP, SYS),
/// writes one crash frame (kind C_RESTORED_HOST_CRASH_FRAME_KIND: the signal
/// number as one byte, then the callback's name) to `fd` with write(2), then
/// dies of the same signal. Runs on an alternate stack, so a stack overflow
/// is reported too. Returns 0, or -1 with errno set.
int c_restored_install_crash_reporter(int fd);

#ifdef __cplusplus
}
#endif

#endif // C_RESTORED_HOST_SUPPORT_H
