/* C shims of RestoredLaunch: starting a program detached from restored.
 * Symbols are prefixed c_restored_. */
#ifndef C_RESTORED_LAUNCH_SUPPORT_H
#define C_RESTORED_LAUNCH_SUPPORT_H

#include <sys/types.h>

/* Starts `path` with `argv` and `envp` in `directory` (NULL: the current
 * one), detached: in a new session, its standard streams on /dev/null, no
 * other descriptor inherited, the default signal mask and dispositions, and
 * reparented away from the caller (a double fork: nothing for the caller to
 * reap later). Returns 0 and the program's pid in `pid` once it has been
 * executed, or the errno of what failed (chdir, the exec itself, fork). */
int c_restored_spawn_detached(const char *path, char *const argv[], char *const envp[], const char *directory, pid_t *pid);

#endif
