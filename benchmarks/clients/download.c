/* download.c — the fbstorage C client of the downloads workload.
 *
 *   download HOST:PORT BUCKET OBJECT get-data
 *   download HOST:PORT BUCKET OBJECT write-to-file FILE
 *
 * Downloads OBJECT into memory (fbs_reference_get_data) or to FILE (fbs_reference_write_to_file)
 * and prints {"seconds": S, "bytes": N} (time from the call to the bytes being there).
 */
#define _POSIX_C_SOURCE 200809L
#include "fbs_client.h"

#include <stdint.h>

int main(int argc, char **argv) {
    int to_file = argc == 6 && strcmp(argv[4], "write-to-file") == 0;
    if (!to_file && !(argc == 5 && strcmp(argv[4], "get-data") == 0)) {
        fprintf(stderr, "usage: %s HOST:PORT BUCKET OBJECT get-data | write-to-file FILE\n", argv[0]);
        return 2;
    }
    fbs_storage *storage;
    fbs_reference *ref;
    int rc;
    if (emulator_reference(argv[1], argv[2], argv[3], &storage, &ref)) return 1;

    long long bytes;
    double started = now_s();
    if (to_file) {
        fbs_task *task;
        if ((rc = fbs_reference_write_to_file(ref, argv[5], &task))) return fail("write_to_file", rc);
        if ((rc = fbs_task_wait(task, -1))) return fail("download", rc);
        fbs_snapshot *snapshot;
        if ((rc = fbs_task_snapshot(task, &snapshot))) return fail("snapshot", rc);
        bytes = fbs_snapshot_bytes_transferred(snapshot);
        fbs_snapshot_free(snapshot);
        fbs_task_free(task);
    } else {
        void *data;
        size_t length;
        if ((rc = fbs_reference_get_data(ref, INT64_MAX, &data, &length))) return fail("get_data", rc);
        bytes = (long long)length;
        fbs_data_free(data);
    }
    printf("{\"seconds\": %.6f, \"bytes\": %lld}\n", now_s() - started, bytes);

    fbs_reference_free(ref);
    fbs_storage_free(storage);
    return 0;
}
