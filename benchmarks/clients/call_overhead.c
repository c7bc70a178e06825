/* call_overhead.c — the cost of small C API calls.
 *
 *   call_overhead HOST:PORT BUCKET ITERATIONS
 *
 * Times ITERATIONS of each operation and prints {"seconds": S, "ns_per_call": {op: ns}}.
 * Under `valgrind --tool=callgrind --collect-atstart=no`, each loop is also dumped as its own
 * profile part named after the operation, so instructions per call = the part's Ir / ITERATIONS.
 * malloc_free is the yardstick: what one allocation costs on the same machine in the same run.
 */
#define _POSIX_C_SOURCE 200809L
#include "fbs_client.h"

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#else   /* no valgrind headers: only the ns timing */
#define CALLGRIND_ZERO_STATS
#define CALLGRIND_TOGGLE_COLLECT
#define CALLGRIND_DUMP_STATS_AT(name)
#endif

typedef struct fixture {
    fbs_reference *ref;
    fbs_metadata *metadata;
    fbs_task *task;   /* a finished small upload, for snapshot copies */
} fixture;

static void *volatile sink;   /* keeps malloc_free from being optimised away */

static void malloc_free(fixture *f) {
    (void)f;
    sink = malloc(64);
    free(sink);
}

static void reference_child_free(fixture *f) {
    fbs_reference *child;
    if (fbs_reference_child(f->ref, "photos/2024/cat.jpg", &child) == FBS_OK) fbs_reference_free(child);
}

static void metadata_set_get(fixture *f) {
    fbs_metadata_set_content_type(f->metadata, "image/jpeg");
    sink = (void *)fbs_metadata_content_type(f->metadata);
}

static void snapshot_copy_free(fixture *f) {
    fbs_snapshot *snapshot;
    if (fbs_task_snapshot(f->task, &snapshot) == FBS_OK) fbs_snapshot_free(snapshot);
}

static const struct operation {
    const char *name;
    void (*run)(fixture *);
} operations[] = {
    {"malloc_free", malloc_free},
    {"reference_child_free", reference_child_free},
    {"metadata_set_get", metadata_set_get},
    {"snapshot_copy_free", snapshot_copy_free},
};

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s HOST:PORT BUCKET ITERATIONS\n", argv[0]);
        return 2;
    }
    long iterations = atol(argv[3]);

    fbs_storage *storage;
    fixture f;
    int rc;
    if (emulator_reference(argv[1], argv[2], "bench/calls", &storage, &f.ref)) return 1;
    if ((rc = fbs_metadata_new(&f.metadata))) return fail("metadata_new", rc);
    if ((rc = fbs_reference_put_data(f.ref, "x", 1, NULL, &f.task))) return fail("put_data", rc);
    if ((rc = fbs_task_wait(f.task, -1))) return fail("upload", rc);

    double started = now_s();
    printf("{\"iterations\": %ld, \"ns_per_call\": {", iterations);
    for (size_t i = 0; i < sizeof operations / sizeof operations[0]; i++) {
        operations[i].run(&f);   /* warm: first-call allocations and lazy binding stay out */
        CALLGRIND_ZERO_STATS;
        CALLGRIND_TOGGLE_COLLECT;
        double t0 = now_s();
        for (long n = 0; n < iterations; n++) operations[i].run(&f);
        double elapsed = now_s() - t0;
        CALLGRIND_TOGGLE_COLLECT;
        CALLGRIND_DUMP_STATS_AT(operations[i].name);
        printf("%s\"%s\": %.1f", i ? ", " : "", operations[i].name, elapsed * 1e9 / (double)iterations);
    }
    printf("}, \"seconds\": %.6f}\n", now_s() - started);

    fbs_task_free(f.task);
    fbs_metadata_free(f.metadata);
    fbs_reference_free(f.ref);
    fbs_storage_free(storage);
    return 0;
}
