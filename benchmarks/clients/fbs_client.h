/* fbs_client.h — what the C benchmark clients share: a storage on the emulator at HOST:PORT
 * (http), or at https://HOST:PORT (the WAN link; its CA from $SSL_CERT_FILE). */
#ifndef FBS_CLIENT_H
#define FBS_CLIENT_H

#include <fbstorage.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double clock_s(clockid_t clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static double now_s(void) { return clock_s(CLOCK_MONOTONIC); }

/* CPU time of the whole process (every thread): with now_s, the work alone, without start-up. */
static inline double cpu_s(void) { return clock_s(CLOCK_PROCESS_CPUTIME_ID); }

static int fail(const char *what, int code) {
    fprintf(stderr, "%s: %s (%s)\n", what, fbs_last_error_message(), fbs_error_name(code));
    return 1;
}

/* A storage for bucket that talks to the emulator at address ("HOST:PORT" or an https URL),
 * and its reference to path; 0, or 1 with the error printed. */
static int emulator_reference(const char *address, const char *bucket, const char *path,
                              fbs_storage **storage, fbs_reference **ref) {
    int rc;
    if (strncmp(address, "https://", 8) == 0) {
        if ((rc = fbs_storage_new(bucket, storage))) return fail("fbs_storage_new", rc);
        if ((rc = fbs_storage_use_endpoint(*storage, address))) return fail("use_endpoint", rc);
        if ((rc = fbs_storage_reference(*storage, path, ref))) return fail("reference", rc);
        return 0;
    }
    char host[256];
    const char *colon = strrchr(address, ':');
    if (!colon || (size_t)(colon - address) >= sizeof host) {
        fprintf(stderr, "want HOST:PORT, not %s\n", address);
        return 1;
    }
    snprintf(host, sizeof host, "%.*s", (int)(colon - address), address);
    rc = fbs_storage_new(bucket, storage);
    if (rc) return fail("fbs_storage_new", rc);
    if ((rc = fbs_storage_use_emulator(*storage, host, atoi(colon + 1)))) return fail("use_emulator", rc);
    if ((rc = fbs_storage_reference(*storage, path, ref))) return fail("reference", rc);
    return 0;
}

#endif
