/* C shims for starting processes: one posix_spawn set-up for every child
 * restored waits for, the detached start of a user's program, and
 * pidfd_open. Every exported symbol is prefixed `c_restored_process_`. */
#ifndef C_RESTORED_PROCESS_H
#define C_RESTORED_PROCESS_H

#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A standard stream the child keeps from its parent. */
#define C_RESTORED_PROCESS_INHERIT (-1)
/* A standard stream the child gets on /dev/null. */
#define C_RESTORED_PROCESS_DEV_NULL (-2)
/* The descriptor number a channel gets in the child. */
#define C_RESTORED_PROCESS_CHANNEL_FD 3

/* What a child gets besides its program, arguments and environment. */
typedef struct c_restored_process_spawn_options {
    /* Descriptors 0, 1, 2 of the child: C_RESTORED_PROCESS_INHERIT,
     * C_RESTORED_PROCESS_DEV_NULL, or a descriptor of the caller. */
    int standard_streams[3];
    /* A descriptor of the caller the child gets as descriptor 3
     * (C_RESTORED_PROCESS_CHANNEL_FD), or -1 for none. */
    int channel;
    /* Nonzero: the child leads a process group of its own. */
    int own_process_group;
} c_restored_process_spawn_options;

/* Starts `path` with `argv` and `envp` (NULL-terminated) as a child of the
 * caller, with `options`' standard streams and channel, no other descriptor
 * of the caller, every signal at its default action and none blocked.
 * Returns 0 and sets `*pid`, or the errno of what failed (the exec itself
 * included). */
int c_restored_process_spawn(const char *path, char *const argv[], char *const envp[],
                             const c_restored_process_spawn_options *options, pid_t *pid);

/* Starts `path` with `argv` and `envp` in `directory` (NULL: the current
 * one), detached: in a new session, its standard streams on /dev/null, no
 * other descriptor inherited, the default signal mask and dispositions, and
 * reparented away from the caller (a double fork: nothing for the caller to
 * reap later). Returns 0 and the program's pid in `pid` once it has been
 * executed, or the errno of what failed (chdir, the exec itself, fork). */
int c_restored_process_spawn_detached(const char *path, char *const argv[], char *const envp[],
                                      const char *directory, pid_t *pid);

/* pipe2(2) with both ends close-on-exec: no child started meanwhile by
 * another thread holds an end open. Returns 0, or -1 with errno set. */
int c_restored_process_pipe(int ends[2]);

/* pidfd_open(2): a descriptor (close-on-exec) that becomes readable when
 * `pid` exits. Returns it, or -1 with errno set. */
int c_restored_process_pidfd_open(pid_t pid);

#ifdef __cplusplus
}
#endif

#endif /* C_RESTORED_PROCESS_H */
