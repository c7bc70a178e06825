/* put_many.c — the fbstorage C client of the small-objects workload.
 *
 *   put_many HOST:PORT BUCKET PREFIX COUNT SIZE IN_FLIGHT
 *
 * Uploads COUNT objects PREFIX/00000.. of SIZE random bytes with fbs_reference_put_data,
 * keeping IN_FLIGHT uploads running (waiting for the oldest before starting another), and
 * prints {"seconds": S, "work_cpu_seconds": C} (C: the process's CPU time over those S).
 */
#define _POSIX_C_SOURCE 200809L
#include "fbs_client.h"

int main(int argc, char **argv) {
    if (argc != 7) {
        fprintf(stderr, "usage: %s HOST:PORT BUCKET PREFIX COUNT SIZE IN_FLIGHT\n", argv[0]);
        return 2;
    }
    long count = atol(argv[4]), in_flight = atol(argv[6]);
    size_t size = (size_t)atol(argv[5]);
    if (count < 1 || in_flight < 1) return 2;
    unsigned char *payload = malloc(size + 1);
    fbs_task **window = calloc((size_t)in_flight, sizeof *window);
    if (!payload || !window) return 1;
    for (size_t i = 0; i < size; i++) payload[i] = (unsigned char)rand();

    fbs_storage *storage;
    fbs_reference *root;
    int rc;
    if (emulator_reference(argv[1], argv[2], argv[3], &storage, &root)) return 1;

    double started = now_s(), cpu_started = cpu_s();
    for (long n = 0; n < count + in_flight; n++) {
        fbs_task **slot = &window[n % in_flight];   /* the oldest upload in the window */
        if (*slot) {
            if ((rc = fbs_task_wait(*slot, -1))) return fail("upload", rc);
            fbs_task_free(*slot);
            *slot = NULL;
        }
        if (n >= count) continue;
        char name[32];
        fbs_reference *ref;
        snprintf(name, sizeof name, "%05ld", n);
        if ((rc = fbs_reference_child(root, name, &ref))) return fail("child", rc);
        if ((rc = fbs_reference_put_data(ref, payload, size, NULL, slot))) return fail("put_data", rc);
        fbs_reference_free(ref);
    }
    printf("{\"seconds\": %.6f, \"work_cpu_seconds\": %.6f}\n", now_s() - started, cpu_s() - cpu_started);

    fbs_reference_free(root);
    fbs_storage_free(storage);
    free(window);
    free(payload);
    return 0;
}
