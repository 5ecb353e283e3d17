// C shims for running plugins in helper processes: spawning a helper with a
// clean slate, following its exit through a pidfd, and the helper's crash
// report. Every exported symbol is prefixed `c_restored_`.
#ifndef C_RESTORED_HOST_SUPPORT_H
#define C_RESTORED_HOST_SUPPORT_H

#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The descriptor number the helper's end of the channel gets in the helper.
#define C_RESTORED_HOST_CHANNEL_FD 3

/// The frame kind of a crash report (see RestoredHostProtocol's HostFrameKind).
#define C_RESTORED_HOST_CRASH_FRAME_KIND 0xEF

/// Starts `path` with `argv` and `envp` (NULL-terminated), with
/// `channel_fd` as descriptor 3 and every other descriptor above 2 closed,
/// every signal at its default action and none blocked, in a process group of
/// its own (a Ctrl-C meant for the daemon does not reach its helpers before
/// the daemon's last save). Returns 0 and sets `*pid`, or an errno value.
int c_restored_spawn_helper(const char *path, char *const argv[], char *const envp[], int channel_fd, pid_t *pid);

/// pidfd_open(2): a descriptor that becomes readable when `pid` exits.
/// Returns it (close-on-exec), or -1 with errno set.
int c_restored_pidfd_open(pid_t pid);

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
