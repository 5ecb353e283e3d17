#define _GNU_SOURCE
#include "c_restored_host_support.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

int c_restored_host_bind_to_parent(pid_t expected_parent) {
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0) return -1;
    if (getppid() != expected_parent) return -2;
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
    return 0;
}

void c_restored_close_from(int first) {
    closefrom(first);
}

static _Atomic(const char *) current_callback;

void c_restored_set_current_callback(const char *name) {
    atomic_store_explicit(&current_callback, name, memory_order_relaxed);
}

const char *c_restored_current_callback(void) {
    return atomic_load_explicit(&current_callback, memory_order_relaxed);
}

static int crash_fd = -1;
static const int fatal_signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS };

static void report_crash(int signal_number) {
    // Only async-signal-safe calls from here on.
    unsigned char frame[4 + 1 + 1 + 128];
    const char *name = atomic_load_explicit(&current_callback, memory_order_relaxed);
    size_t name_length = 0;
    if (name) {
        while (name[name_length] && name_length < 128) name_length++;
    }
    uint32_t body_length = (uint32_t)(2 + name_length);
    frame[0] = (unsigned char)(body_length & 0xFF);
    frame[1] = (unsigned char)((body_length >> 8) & 0xFF);
    frame[2] = (unsigned char)((body_length >> 16) & 0xFF);
    frame[3] = (unsigned char)((body_length >> 24) & 0xFF);
    frame[4] = C_RESTORED_HOST_CRASH_FRAME_KIND;
    frame[5] = (unsigned char)signal_number;
    if (name_length) memcpy(frame + 6, name, name_length);
    if (crash_fd >= 0) {
        ssize_t ignored = write(crash_fd, frame, 4 + body_length);
        (void)ignored;
    }
    // Die of the same signal, so the daemon's waitpid sees it too.
    signal(signal_number, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, signal_number);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    raise(signal_number);
    _exit(128 + signal_number);
}

int c_restored_install_crash_reporter(int fd) {
    crash_fd = fd;
    static char alternate_stack[64 * 1024];
    stack_t stack = { .ss_sp = alternate_stack, .ss_size = sizeof alternate_stack, .ss_flags = 0 };
    if (sigaltstack(&stack, NULL) != 0) return -1;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = report_crash;
    action.sa_flags = SA_ONSTACK | SA_RESETHAND | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++) {
        if (sigaction(fatal_signals[i], &action, NULL) != 0) return -1;
    }
    return 0;
}
