#include "c_restored_session_client.h"

#include <X11/ICE/ICElib.h>
#include <X11/SM/SMlib.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct c_restored_sm_client {
    SmcConn connection;
    char *client_id;
    int events;
    bool shutdown;
};

static void c_restored_sm_on_save_yourself(SmcConn connection, SmPointer data, int save_type, Bool shutdown, int interact_style, Bool fast) {
    (void)connection; (void)save_type; (void)interact_style; (void)fast;
    c_restored_sm_client *client = data;
    client->events |= C_RESTORED_SM_SAVE_YOURSELF;
    client->shutdown = shutdown;
}

static void c_restored_sm_on_die(SmcConn connection, SmPointer data) {
    (void)connection;
    ((c_restored_sm_client *)data)->events |= C_RESTORED_SM_DIE;
}

static void c_restored_sm_on_save_complete(SmcConn connection, SmPointer data) {
    (void)connection;
    ((c_restored_sm_client *)data)->events |= C_RESTORED_SM_SAVE_COMPLETE;
}

static void c_restored_sm_on_shutdown_cancelled(SmcConn connection, SmPointer data) {
    (void)connection;
    ((c_restored_sm_client *)data)->events |= C_RESTORED_SM_SHUTDOWN_CANCELLED;
}

/* libICE's default handlers exit the process on a broken connection: here a
 * broken connection is reported by c_restored_sm_process instead. */
static void c_restored_sm_on_io_error(IceConn connection) {
    (void)connection;
}

static void c_restored_sm_on_ice_error(IceConn connection, Bool swap, int offending_minor_opcode, unsigned long offending_sequence,
                                       int error_class, int severity, IcePointer values) {
    (void)connection; (void)swap; (void)offending_minor_opcode; (void)offending_sequence; (void)error_class; (void)severity; (void)values;
}

static void c_restored_sm_on_sm_error(SmcConn connection, Bool swap, int offending_minor_opcode, unsigned long offending_sequence,
                                      int error_class, int severity, SmPointer values) {
    (void)connection; (void)swap; (void)offending_minor_opcode; (void)offending_sequence; (void)error_class; (void)severity; (void)values;
}

c_restored_sm_client *c_restored_sm_open(const char *network_ids, const char *program, char *error, size_t error_length) {
    IceSetIOErrorHandler(c_restored_sm_on_io_error);
    IceSetErrorHandler(c_restored_sm_on_ice_error);
    SmcSetErrorHandler(c_restored_sm_on_sm_error);
    c_restored_sm_client *client = calloc(1, sizeof *client);
    if (client == NULL) {
        snprintf(error, error_length, "out of memory");
        return NULL;
    }
    SmcCallbacks callbacks;
    memset(&callbacks, 0, sizeof callbacks);
    callbacks.save_yourself.callback = c_restored_sm_on_save_yourself;
    callbacks.save_yourself.client_data = client;
    callbacks.die.callback = c_restored_sm_on_die;
    callbacks.die.client_data = client;
    callbacks.save_complete.callback = c_restored_sm_on_save_complete;
    callbacks.save_complete.client_data = client;
    callbacks.shutdown_cancelled.callback = c_restored_sm_on_shutdown_cancelled;
    callbacks.shutdown_cancelled.client_data = client;
    char message[256] = "";
    unsigned long mask = SmcSaveYourselfProcMask | SmcDieProcMask | SmcSaveCompleteProcMask | SmcShutdownCancelledProcMask;
    client->connection = SmcOpenConnection((char *)network_ids, NULL, SmProtoMajor, SmProtoMinor, mask, &callbacks,
                                           NULL, &client->client_id, sizeof message, message);
    if (client->connection == NULL) {
        snprintf(error, error_length, "%s", message[0] ? message : "the session manager refused the connection");
        free(client);
        return NULL;
    }
    /* Who this client is, and that it is never to be restarted. */
    char restart_never = SmRestartNever;
    SmPropValue program_value = { (int)strlen(program), (SmPointer)program };
    SmPropValue hint_value = { 1, &restart_never };
    struct passwd *user = getpwuid(getuid());
    const char *name = user != NULL ? user->pw_name : "";
    SmPropValue user_value = { (int)strlen(name), (SmPointer)name };
    SmProp program_property = { SmProgram, SmARRAY8, 1, &program_value };
    SmProp hint_property = { SmRestartStyleHint, SmCARD8, 1, &hint_value };
    SmProp user_property = { SmUserID, SmARRAY8, 1, &user_value };
    SmProp *properties[] = { &program_property, &hint_property, &user_property };
    SmcSetProperties(client->connection, 3, properties);
    IceFlush(SmcGetIceConnection(client->connection));
    return client;
}

int c_restored_sm_descriptor(const c_restored_sm_client *client) {
    return IceConnectionNumber(SmcGetIceConnection(client->connection));
}

const char *c_restored_sm_client_id(const c_restored_sm_client *client) {
    return client->client_id != NULL ? client->client_id : "";
}

int c_restored_sm_process(c_restored_sm_client *client, bool *shutdown) {
    client->events = 0;
    IceProcessMessagesStatus status = IceProcessMessages(SmcGetIceConnection(client->connection), NULL, NULL);
    if (status == IceProcessMessagesIOError || status == IceProcessMessagesConnectionClosed) {
        client->events |= C_RESTORED_SM_CLOSED;
    }
    *shutdown = client->shutdown;
    return client->events;
}

void c_restored_sm_save_yourself_done(c_restored_sm_client *client, bool success) {
    SmcSaveYourselfDone(client->connection, success ? True : False);
    IceFlush(SmcGetIceConnection(client->connection));
}

void c_restored_sm_close(c_restored_sm_client *client) {
    if (client == NULL) return;
    SmcCloseConnection(client->connection, 0, NULL);
    free(client->client_id);
    free(client);
}
