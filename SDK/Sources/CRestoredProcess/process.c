#define _GNU_SOURCE
#include "c_restored_process.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* Adds the file actions of `options`; a descriptor that must end up at its
 * own number goes through a copy above the ones in use, since dup2 onto
 * itself would leave close-on-exec set. `copies` receives the copies made,
 * for the caller to close. */
static int add_file_actions(posix_spawn_file_actions_t *actions, const c_restored_process_spawn_options *options, int copies[4]) {
    int error = 0;
    for (int stream = 0; stream < 3 && !error; stream++) {
        int source = options->standard_streams[stream];
        if (source == C_RESTORED_PROCESS_DEV_NULL) {
            error = posix_spawn_file_actions_addopen(actions, stream, "/dev/null", stream == 0 ? O_RDONLY : O_WRONLY, 0);
        } else if (source >= 0) {
            if (source <= C_RESTORED_PROCESS_CHANNEL_FD) {
                source = fcntl(source, F_DUPFD_CLOEXEC, 10);
                if (source < 0) return errno;
                copies[stream] = source;
            }
            error = posix_spawn_file_actions_adddup2(actions, source, stream);
        }
    }
    int first_closed = 3;
    if (!error && options->channel >= 0) {
        int source = options->channel;
        if (source <= C_RESTORED_PROCESS_CHANNEL_FD) {
            source = fcntl(source, F_DUPFD_CLOEXEC, 10);
            if (source < 0) return errno;
            copies[3] = source;
        }
        error = posix_spawn_file_actions_adddup2(actions, source, C_RESTORED_PROCESS_CHANNEL_FD);
        first_closed = C_RESTORED_PROCESS_CHANNEL_FD + 1;
    }
    if (!error) error = posix_spawn_file_actions_addclosefrom_np(actions, first_closed);
    return error;
}

int c_restored_process_spawn(const char *path, char *const argv[], char *const envp[],
                             const c_restored_process_spawn_options *options, pid_t *pid) {
    posix_spawn_file_actions_t actions;
    int error = posix_spawn_file_actions_init(&actions);
    if (error) return error;
    posix_spawnattr_t attributes;
    error = posix_spawnattr_init(&attributes);
    if (error) {
        posix_spawn_file_actions_destroy(&actions);
        return error;
    }
    int copies[4] = { -1, -1, -1, -1 };
    error = add_file_actions(&actions, options, copies);
    sigset_t all, none;
    sigfillset(&all);
    sigemptyset(&none);
    short flags = POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK;
    if (!error) error = posix_spawnattr_setsigdefault(&attributes, &all);
    if (!error) error = posix_spawnattr_setsigmask(&attributes, &none);
    if (!error && options->own_process_group) {
        error = posix_spawnattr_setpgroup(&attributes, 0);
        flags |= POSIX_SPAWN_SETPGROUP;
    }
    if (!error) error = posix_spawnattr_setflags(&attributes, flags);
    if (!error) error = posix_spawn(pid, path, &actions, &attributes, argv, envp);
    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
    for (int i = 0; i < 4; i++) {
        if (copies[i] >= 0) close(copies[i]);
    }
    return error;
}

/* Writes all of `buffer`, retrying on EINTR; async-signal-safe. */
static void write_all(int fd, const void *buffer, size_t length) {
    const char *bytes = buffer;
    while (length > 0) {
        ssize_t written = write(fd, bytes, length);
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) return;
        bytes += written;
        length -= (size_t)written;
    }
}

/* Between fork and exec only async-signal-safe calls are made: the caller
 * is multithreaded. */
static void become_program(const char *path, char *const argv[], char *const envp[], const char *directory, int report) {
    /* The standard streams are replaced below: keep the report pipe clear of them. */
    if (report < 3) {
        int moved = fcntl(report, F_DUPFD_CLOEXEC, 3);
        if (moved >= 0) report = moved;
    }
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    for (int signal = 1; signal < NSIG; signal++) {
        if (signal != SIGKILL && signal != SIGSTOP) {
            struct sigaction action;
            memset(&action, 0, sizeof action);
            action.sa_handler = SIG_DFL;
            sigaction(signal, &action, NULL);
        }
    }
    int error = 0;
    if (directory != NULL && chdir(directory) != 0) {
        error = errno;
    } else {
        int null = open("/dev/null", O_RDWR);
        if (null < 0) {
            error = errno;
        } else {
            dup2(null, 0);
            dup2(null, 1);
            dup2(null, 2);
            if (null > 2) close(null);
            /* Everything else goes, except the report pipe (close-on-exec). */
            if (report > 3) syscall(SYS_close_range, 3U, (unsigned)(report - 1), 0);
            syscall(SYS_close_range, (unsigned)(report + 1), ~0U, 0);
            execve(path, argv, envp);
            error = errno;
        }
    }
    write_all(report, &error, sizeof error);
    _exit(127);
}

int c_restored_process_spawn_detached(const char *path, char *const argv[], char *const envp[],
                                      const char *directory, pid_t *pid) {
    /* report: the grandchild's exec error (nothing when the exec worked);
     * pids: the grandchild's pid, from the child. */
    int report[2], pids[2];
    if (pipe2(report, O_CLOEXEC) != 0) return errno;
    if (pipe2(pids, O_CLOEXEC) != 0) {
        int error = errno;
        close(report[0]);
        close(report[1]);
        return error;
    }
    pid_t child = fork();
    if (child < 0) {
        int error = errno;
        close(report[0]); close(report[1]); close(pids[0]); close(pids[1]);
        return error;
    }
    if (child == 0) {
        close(report[0]);
        close(pids[0]);
        setsid();
        pid_t grandchild = fork();
        if (grandchild == 0) {
            close(pids[1]);
            become_program(path, argv, envp, directory, report[1]);
        }
        if (grandchild < 0) {
            /* The second fork failed: its errno is the caller's answer. */
            int error = errno;
            write_all(report[1], &error, sizeof error);
        }
        write_all(pids[1], &grandchild, sizeof grandchild);
        _exit(grandchild < 0 ? 1 : 0);
    }
    close(report[1]);
    close(pids[1]);
    pid_t grandchild = -1;
    ssize_t got;
    do { got = read(pids[0], &grandchild, sizeof grandchild); } while (got < 0 && errno == EINTR);
    close(pids[0]);
    int status;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {}
    int error = 0;
    do { got = read(report[0], &error, sizeof error); } while (got < 0 && errno == EINTR);
    close(report[0]);
    if (got == (ssize_t)sizeof error && error != 0) return error;
    if (grandchild <= 0) return EAGAIN;
    *pid = grandchild;
    return 0;
}

int c_restored_process_pipe(int ends[2]) {
    return pipe2(ends, O_CLOEXEC);
}

int c_restored_process_pidfd_open(pid_t pid) {
    return (int)syscall(SYS_pidfd_open, pid, 0);
}
