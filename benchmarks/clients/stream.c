/* stream.c — the fbstorage C client of the streams workload.
 *
 *   stream HOST:PORT BUCKET OBJECT sink
 *   stream HOST:PORT BUCKET OBJECT pipe-upload FILE
 *
 * sink: streams OBJECT into a sink that counts its bytes (fbs_reference_stream).
 * pipe-upload: a thread writes FILE into a pipe, uploaded with fbs_reference_put_fd.
 * Prints {"seconds": S, "bytes": N} (time from the call to the end of the task).
 */
#define _POSIX_C_SOURCE 200809L
#include "fbs_client.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <unistd.h>

static int count_bytes(const void *bytes, size_t length, void *user_data) {
    (void)bytes;
    *(long long *)user_data += (long long)length;
    return 0;
}

typedef struct feeder {
    const char *path;
    int fd;
} feeder;

static void *feed(void *arg) {
    feeder *f = arg;
    int in = open(f->path, O_RDONLY);
    static char buffer[1 << 16];
    ssize_t n;
    while (in >= 0 && (n = read(in, buffer, sizeof buffer)) > 0) {
        for (ssize_t done = 0; done < n;) {
            ssize_t k = write(f->fd, buffer + done, (size_t)(n - done));
            if (k <= 0) goto out;
            done += k;
        }
    }
out:
    if (in >= 0) close(in);
    close(f->fd);
    return NULL;
}

int main(int argc, char **argv) {
    int sink = argc == 5 && strcmp(argv[4], "sink") == 0;
    if (!sink && !(argc == 6 && strcmp(argv[4], "pipe-upload") == 0)) {
        fprintf(stderr, "usage: %s HOST:PORT BUCKET OBJECT sink | pipe-upload FILE\n", argv[0]);
        return 2;
    }
    fbs_storage *storage;
    fbs_reference *ref;
    fbs_task *task;
    int rc;
    if (emulator_reference(argv[1], argv[2], argv[3], &storage, &ref)) return 1;

    long long bytes = 0;
    double started = now_s();
    if (sink) {
        if ((rc = fbs_reference_stream(ref, 0, -1, count_bytes, &bytes, &task))) return fail("stream", rc);
        if ((rc = fbs_task_wait(task, -1))) return fail("download", rc);
    } else {
        int fds[2];
        if (pipe(fds)) return fail("pipe", FBS_ERR_UNKNOWN);
        feeder f = {argv[5], fds[1]};
        pthread_t thread;
        if (pthread_create(&thread, NULL, feed, &f)) return fail("thread", FBS_ERR_UNKNOWN);
        if ((rc = fbs_reference_put_fd(ref, fds[0], NULL, &task))) return fail("put_fd", rc);
        if ((rc = fbs_task_wait(task, -1))) return fail("upload", rc);
        pthread_join(thread, NULL);
        close(fds[0]);
        fbs_snapshot *snapshot;
        if ((rc = fbs_task_snapshot(task, &snapshot))) return fail("snapshot", rc);
        bytes = fbs_snapshot_bytes_transferred(snapshot);
        fbs_snapshot_free(snapshot);
    }
    printf("{\"seconds\": %.6f, \"bytes\": %lld}\n", now_s() - started, bytes);

    fbs_task_free(task);
    fbs_reference_free(ref);
    fbs_storage_free(storage);
    return 0;
}
