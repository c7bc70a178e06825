/* reqlog.h — the emulator's recorded requests (GET /_emulator/requests), simplified. */
#ifndef FBS_TEST_REQLOG_H
#define FBS_TEST_REQLOG_H

#include "harness.h"

typedef struct logged_request {
    char method[16];
    char *url;             /* path and query as received, e.g. /v0/b/B/o?name=x&upload_id=... */
    char *command;         /* X-Goog-Upload-Command or "" */
    char *authorization;   /* Authorization header or NULL when absent */
    long long offset;      /* X-Goog-Upload-Offset or -1 */
    long long body_bytes;  /* bytes of body received (-1 when unknown) */
    int status;            /* the response status (0 when unknown) */
    char *app_check;       /* the App Check verdict ("valid", "missing", ...) or NULL when not judged */
} logged_request;

typedef struct reqlog {
    logged_request *items;
    size_t count;
} reqlog;

/* Fetches and decodes the log; fails the test when it cannot. */
void reqlog_fetch(const emulator *e, reqlog *out);
void reqlog_free(reqlog *log);
/* Requests whose url contains url_part (NULL: any) and whose command contains command_part
 * (NULL: any; "" means no command). */
size_t reqlog_count(const reqlog *log, const char *method, const char *url_part, const char *command_part);
/* Prints the log (for failure diagnostics). */
void reqlog_dump(const reqlog *log);

#endif
