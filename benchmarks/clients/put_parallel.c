/* put_parallel.c — the fbstorage C client of the scale workload's parallel uploads.
 *
 *   put_parallel HOST:PORT BUCKET FILE PREFIX COUNT
 *
 * Starts COUNT fbs_reference_put_file uploads of FILE to PREFIX/0 .. PREFIX/COUNT-1 at once,
 * all on one storage, waits for every one and prints {"seconds": S}.
 */
#define _POSIX_C_SOURCE 200809L
#include "fbs_client.h"

int main(int argc, char **argv) {
    if (argc != 6 || atoi(argv[5]) < 1) {
        fprintf(stderr, "usage: %s HOST:PORT BUCKET FILE PREFIX COUNT\n", argv[0]);
        return 2;
    }
    int count = atoi(argv[5]);
    fbs_task **tasks = calloc((size_t)count, sizeof *tasks);
    fbs_storage *storage;
    fbs_reference *root;
    int rc;
    if (!tasks) return 1;
    if (emulator_reference(argv[1], argv[2], argv[4], &storage, &root)) return 1;

    double started = now_s();
    for (int i = 0; i < count; i++) {
        char name[16];
        fbs_reference *ref;
        snprintf(name, sizeof name, "%d", i);
        if ((rc = fbs_reference_child(root, name, &ref))) return fail("child", rc);
        if ((rc = fbs_reference_put_file(ref, argv[3], NULL, &tasks[i]))) return fail("put_file", rc);
        fbs_reference_free(ref);
    }
    for (int i = 0; i < count; i++) {
        if ((rc = fbs_task_wait(tasks[i], -1))) return fail("upload", rc);
        fbs_task_free(tasks[i]);
    }
    printf("{\"seconds\": %.6f}\n", now_s() - started);

    fbs_reference_free(root);
    fbs_storage_free(storage);
    free(tasks);
    return 0;
}
