/*
 * c_restored_session_client.h - an XSMP client (libSM/libICE) for restored.
 *
 * One client per connection; every call on a client from one thread at a
 * time (libICE is not thread-safe). Symbols are prefixed c_restored_sm_.
 */
#ifndef C_RESTORED_SESSION_CLIENT_H
#define C_RESTORED_SESSION_CLIENT_H

#include <stdbool.h>
#include <stddef.h>

/** A connection to the session manager. */
typedef struct c_restored_sm_client c_restored_sm_client;

/** What the session manager asked, as bits returned by c_restored_sm_process. */
enum {
    /** SaveYourself: see `shutdown` and `checkpoint_only`. */
    C_RESTORED_SM_SAVE_YOURSELF = 1 << 0,
    /** Die: the session is over; close the connection. */
    C_RESTORED_SM_DIE = 1 << 1,
    /** ShutdownCancelled: the logout was cancelled. */
    C_RESTORED_SM_SHUTDOWN_CANCELLED = 1 << 2,
    /** SaveComplete: every client has saved. */
    C_RESTORED_SM_SAVE_COMPLETE = 1 << 3,
    /** The connection was closed or broke. */
    C_RESTORED_SM_CLOSED = 1 << 4
};

/**
 * Connects to the session manager at `network_ids` (SESSION_MANAGER) and
 * registers a client that asks never to be restarted (SmRestartNever) and
 * gives no restart command: restored is a service, not an app the session
 * relaunches. NULL on failure, with a message in `error`.
 */
c_restored_sm_client *c_restored_sm_open(const char *network_ids, const char *program, char *error, size_t error_length);

/** The connection's file descriptor, to poll for input. */
int c_restored_sm_descriptor(const c_restored_sm_client *client);

/** The client id the session manager gave. Valid until close. */
const char *c_restored_sm_client_id(const c_restored_sm_client *client);

/**
 * Reads and handles what arrived; returns the C_RESTORED_SM_* bits of what
 * the session manager asked. For SaveYourself, `*shutdown` says whether the
 * session ends.
 */
int c_restored_sm_process(c_restored_sm_client *client, bool *shutdown);

/** Answers the last SaveYourself. */
void c_restored_sm_save_yourself_done(c_restored_sm_client *client, bool success);

/** Closes the connection and frees the client. */
void c_restored_sm_close(c_restored_sm_client *client);

#endif
