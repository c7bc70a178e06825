/* put_file.c — the fbstorage C client of the large-upload workload.
 *
 *   put_file HOST:PORT BUCKET FILE OBJECT [CHUNK_BYTES]
 *
 * Uploads FILE with fbs_reference_put_file and prints {"seconds": S} (time from the call to
 * the end of the task). CPU and peak RSS are measured by the parent (wait4).
 */
#define _POSIX_C_SOURCE 200809L
#include "fbs_client.h"

int main(int argc, char **argv) {
    if (argc < 5 || argc > 6) {
        fprintf(stderr, "usage: %s HOST:PORT BUCKET FILE OBJECT [CHUNK_BYTES]\n", argv[0]);
        return 2;
    }
    fbs_storage *storage;
    fbs_reference *ref;
    fbs_task *task;
    int rc;
    if (emulator_reference(argv[1], argv[2], argv[4], &storage, &ref)) return 1;
    if (argc == 6 && (rc = fbs_storage_set_upload_chunk_size(storage, atoll(argv[5]))))
        return fail("set_upload_chunk_size", rc);

    double started = now_s();
    if ((rc = fbs_reference_put_file(ref, argv[3], NULL, &task))) return fail("put_file", rc);
    if ((rc = fbs_task_wait(task, -1))) return fail("upload", rc);
    printf("{\"seconds\": %.6f}\n", now_s() - started);

    fbs_task_free(task);
    fbs_reference_free(ref);
    fbs_storage_free(storage);
    return 0;
}
