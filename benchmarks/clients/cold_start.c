/* cold_start.c — the WAN workload's cold start: a fresh process signs in and uploads.
 *
 *   cold_start AUTH_HOST:PORT ENDPOINT BUCKET OBJECT SIZE
 *
 * From main() on: an anonymous sign-in at the Auth emulator at AUTH_HOST:PORT (http), a
 * storage on ENDPOINT (an https URL) using that sign-in, and one fbs_reference_put_data of
 * SIZE bytes to OBJECT. Prints {"seconds": S, "sign_in_seconds": A} (S: all of it).
 */
#define _POSIX_C_SOURCE 200809L
#include "fbs_client.h"

int main(int argc, char **argv) {
    double started = now_s();
    if (argc != 6) {
        fprintf(stderr, "usage: %s AUTH_HOST:PORT ENDPOINT BUCKET OBJECT SIZE\n", argv[0]);
        return 2;
    }
    char host[256];
    const char *colon = strrchr(argv[1], ':');
    if (!colon || (size_t)(colon - argv[1]) >= sizeof host) return 2;
    snprintf(host, sizeof host, "%.*s", (int)(colon - argv[1]), argv[1]);
    size_t size = (size_t)atol(argv[5]);
    unsigned char *payload = calloc(size + 1, 1);
    if (!payload) return 1;

    fbs_auth *auth;
    fbs_user *user;
    fbs_storage *storage;
    fbs_reference *ref;
    fbs_task *task;
    int rc;
    if ((rc = fbs_auth_new("wan-bench-api-key", "demo-project", &auth))) return fail("auth_new", rc);
    if ((rc = fbs_auth_use_emulator(auth, host, atoi(colon + 1)))) return fail("auth_use_emulator", rc);
    if ((rc = fbs_auth_sign_in_anonymously(auth, &user))) return fail("sign_in", rc);
    double signed_in = now_s();
    if (emulator_reference(argv[2], argv[3], argv[4], &storage, &ref)) return 1;
    if ((rc = fbs_storage_use_auth(storage, auth))) return fail("use_auth", rc);
    if ((rc = fbs_reference_put_data(ref, payload, size, NULL, &task))) return fail("put_data", rc);
    if ((rc = fbs_task_wait(task, -1))) return fail("upload", rc);
    double done = now_s();
    printf("{\"seconds\": %.6f, \"sign_in_seconds\": %.6f}\n", done - started, signed_in - started);

    fbs_task_free(task);
    fbs_reference_free(ref);
    fbs_storage_free(storage);
    fbs_user_free(user);
    fbs_auth_free(auth);
    free(payload);
    return 0;
}
