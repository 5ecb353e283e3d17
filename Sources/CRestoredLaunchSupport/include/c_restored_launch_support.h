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

/* Starts `path` with `argv` and `envp` to run to its end, capturing its
 * output: standard input on /dev/null, standard output and error on pipes
 * whose reading ends (close-on-exec) are returned in `output` and `errors`,
 * no other descriptor inherited, the default signal mask and dispositions.
 * Returns 0, or the errno of what failed (the exec itself included). */
int c_restored_spawn_captured(const char *path, char *const argv[], char *const envp[], int *output, int *errors, pid_t *pid);

#endif
