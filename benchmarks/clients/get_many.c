/* get_many.c — the fbstorage C client of the WAN workload's small downloads.
 *
 *   get_many ADDRESS BUCKET PREFIX COUNT IN_FLIGHT
 *
 * Downloads PREFIX/00000 .. PREFIX/COUNT-1 into memory with fbs_reference_get_data_async,
 * IN_FLIGHT at a time, and prints {"seconds": S, "work_cpu_seconds": C, "bytes": N}.
 */
#define _POSIX_C_SOURCE 200809L
#include "fbs_client.h"

#include <pthread.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t finished = PTHREAD_COND_INITIALIZER;
static long running, failures;
static long long received;

static void got(int status, const void *bytes, size_t length, void *user_data) {
    (void)bytes;
    (void)user_data;
    pthread_mutex_lock(&lock);
    if (status) {
        fprintf(stderr, "download: %s (%s)\n", fbs_last_error_message(), fbs_error_name(status));
        failures++;
    }
    received += (long long)length;
    running--;
    pthread_cond_signal(&finished);
    pthread_mutex_unlock(&lock);
}

int main(int argc, char **argv) {
    if (argc != 6) {
        fprintf(stderr, "usage: %s ADDRESS BUCKET PREFIX COUNT IN_FLIGHT\n", argv[0]);
        return 2;
    }
    long count = atol(argv[4]), in_flight = atol(argv[5]);
    if (count < 1 || in_flight < 1) return 2;
    fbs_storage *storage;
    fbs_reference *root;
    int rc;
    if (emulator_reference(argv[1], argv[2], argv[3], &storage, &root)) return 1;

    double started = now_s(), cpu_started = cpu_s();
    for (long n = 0; n < count; n++) {
        pthread_mutex_lock(&lock);
        while (running >= in_flight) pthread_cond_wait(&finished, &lock);
        running++;
        pthread_mutex_unlock(&lock);
        char name[32];
        fbs_reference *ref;
        snprintf(name, sizeof name, "%05ld", n);
        if ((rc = fbs_reference_child(root, name, &ref))) return fail("child", rc);
        if ((rc = fbs_reference_get_data_async(ref, INT64_MAX, got, NULL))) return fail("get_data", rc);
        fbs_reference_free(ref);
    }
    pthread_mutex_lock(&lock);
    while (running > 0) pthread_cond_wait(&finished, &lock);
    pthread_mutex_unlock(&lock);
    printf("{\"seconds\": %.6f, \"work_cpu_seconds\": %.6f, \"bytes\": %lld}\n", now_s() - started,
           cpu_s() - cpu_started, received);

    fbs_reference_free(root);
    fbs_storage_free(storage);
    return failures != 0;
}
