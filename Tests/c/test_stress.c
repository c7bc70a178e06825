/* test_stress.c — 16 threads start uploads on two shared storages and pause, resume, cancel,
 * free tasks and remove observers while callbacks fire; then the storages are freed with
 * tasks still running. Passes when nothing deadlocks or crashes and every task reported
 * exactly one terminal event (SUCCESS, or FAILURE with FBS_ERR_CANCELLED) and nothing after
 * it. Leaks and races are for the sanitizer and valgrind runs of this test (make sanitize,
 * make test-c-valgrind). Workers only record; the main thread checks after joining them. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "harness.h"

#define KIB 1024
#define THREADS 16
#define ROUNDS 10
#define STORAGES 2

/* What one task's observers saw. Written on the callback thread, read after the storages are
 * freed (which returns after every callback returned). */
typedef struct task_record {
    int terminal_events, events_after_terminal, terminal_code;
    int wait_code;   /* fbs_task_wait's result, or 1 when the worker did not wait */
} task_record;

typedef struct worker {
    int index;
    fbs_storage *storage;
    task_record records[ROUNDS];
    int failed_calls;   /* calls that should have succeeded but did not */
    pthread_t thread;
} worker;

static int callbacks_run;

static void on_terminal(const fbs_snapshot *s, void *user_data) {
    task_record *r = user_data;
    __atomic_add_fetch(&callbacks_run, 1, __ATOMIC_SEQ_CST);
    __atomic_store_n(&r->terminal_code, fbs_snapshot_error_code(s), __ATOMIC_SEQ_CST);
    __atomic_add_fetch(&r->terminal_events, 1, __ATOMIC_SEQ_CST);
}

static void on_running(const fbs_snapshot *s, void *user_data) {
    task_record *r = user_data;
    __atomic_add_fetch(&callbacks_run, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&r->terminal_events, __ATOMIC_SEQ_CST) > 0)
        __atomic_add_fetch(&r->events_after_terminal, 1, __ATOMIC_SEQ_CST);
    (void)fbs_snapshot_bytes_transferred(s);
}

/* One of the ways a worker treats its task, chosen per round. */
enum action { WAIT, PAUSE_RESUME, CANCEL, REMOVE_OBSERVERS, ABANDON, N_ACTIONS };

/* Returns fbs_task_wait's result, or 1 for ABANDON; counts failed calls in w. */
static int act(worker *w, fbs_task *t, enum action a, fbs_observer_handle progress, unsigned *seed) {
    int failed = 0;
    switch (a) {
    case WAIT: break;
    case PAUSE_RESUME:
        failed |= fbs_task_pause(t) != FBS_OK;
        sleep_ms(rand_r(seed) % 20);
        failed |= fbs_task_resume(t) != FBS_OK;
        break;
    case CANCEL:
        sleep_ms(rand_r(seed) % 20);
        failed |= fbs_task_cancel(t) != FBS_OK;
        break;
    case REMOVE_OBSERVERS:
        failed |= fbs_task_remove_observer(t, progress) != FBS_OK;
        failed |= fbs_task_remove_all_observers_for_status(t, FBS_TASK_STATUS_PAUSE) != FBS_OK;
        break;
    case ABANDON:
        return 1;   /* freed without waiting: the storage's teardown ends it */
    default: break;
    }
    w->failed_calls += failed;
    return fbs_task_wait(t, 60000);
}

static void *run_worker(void *arg) {
    worker *w = arg;
    unsigned seed = 7919u * (unsigned)w->index + 1;
    size_t max = 300 * KIB + THREADS * KIB;
    unsigned char *bytes = random_bytes(max, seed);
    for (int round = 0; round < ROUNDS; round++) {
        task_record *r = &w->records[round];
        char path[96];
        snprintf(path, sizeof path, "stress/%d-t%d-r%d.bin", (int)getpid(), w->index, round);
        /* every third upload is one multipart request; the others are two resumable chunks */
        size_t n = round % 3 == 0 ? KIB + (size_t)w->index : 300 * KIB + (size_t)w->index * KIB;
        enum action a = round == ROUNDS - 1 ? ABANDON : (enum action)((w->index + round) % N_ACTIONS);
        fbs_reference *ref = NULL;
        fbs_task *t = NULL;
        fbs_observer_handle progress = 0;
        if (fbs_storage_reference(w->storage, path, &ref) != FBS_OK
            || fbs_reference_put_data(ref, bytes, n, NULL, &t) != FBS_OK
            || fbs_task_observe(t, FBS_TASK_STATUS_SUCCESS, on_terminal, r, NULL) != FBS_OK
            || fbs_task_observe(t, FBS_TASK_STATUS_FAILURE, on_terminal, r, NULL) != FBS_OK
            || fbs_task_observe(t, FBS_TASK_STATUS_PROGRESS, on_running, r, &progress) != FBS_OK
            || fbs_task_observe(t, FBS_TASK_STATUS_PAUSE, on_running, r, NULL) != FBS_OK
            || fbs_task_observe(t, FBS_TASK_STATUS_RESUME, on_running, r, NULL) != FBS_OK) {
            w->failed_calls++;
            r->wait_code = 1;
        } else {
            r->wait_code = act(w, t, a, progress, &seed);
        }
        fbs_snapshot *snap = NULL;
        if (t && fbs_task_snapshot(t, &snap) == FBS_OK) {
            if (fbs_snapshot_bytes_transferred(snap) > (int64_t)n) w->failed_calls++;
            fbs_snapshot_free(snap);
        }
        fbs_task_free(t);
        fbs_reference_free(ref);
    }
    free(bytes);
    return NULL;
}

TEST_EX(stress_sixteen_threads, TEST_NEEDS_EMULATOR, 120) {
    fbs_storage *storages[STORAGES];
    for (int i = 0; i < STORAGES; i++) {
        storages[i] = new_storage();
        REQUIRE_OK(fbs_storage_set_upload_chunk_size(storages[i], 256 * KIB));
    }
    /* slow chunks a little, so pauses and cancels land while requests are in flight */
    emu_fault_delay(EMU, (fault_match){NULL, "upload", NULL, NULL, FOREVER}, 20);
    static worker workers[THREADS];
    for (int i = 0; i < THREADS; i++) {
        workers[i] = (worker){.index = i, .storage = storages[i % STORAGES]};
        REQUIRE(pthread_create(&workers[i].thread, NULL, run_worker, &workers[i]) == 0);
    }
    for (int i = 0; i < THREADS; i++) pthread_join(workers[i].thread, NULL);
    for (int i = 0; i < STORAGES; i++) fbs_storage_free(storages[i]);   /* cancels the abandoned */

    int callbacks_after_free = __atomic_load_n(&callbacks_run, __ATOMIC_SEQ_CST);
    int succeeded = 0, cancelled = 0;
    for (int i = 0; i < THREADS; i++) {
        CHECK_EQ_INT(workers[i].failed_calls, 0);
        for (int round = 0; round < ROUNDS; round++) {
            task_record *r = &workers[i].records[round];
            CHECK_EQ_INT(r->terminal_events, 1);
            CHECK_EQ_INT(r->events_after_terminal, 0);
            CHECK(r->terminal_code == FBS_OK || r->terminal_code == FBS_ERR_CANCELLED);
            if (r->wait_code != 1) CHECK_EQ_INT(r->wait_code, r->terminal_code);
            succeeded += r->terminal_code == FBS_OK;
            cancelled += r->terminal_code == FBS_ERR_CANCELLED;
        }
    }
    CHECK(succeeded > 0 && cancelled > 0);   /* both endings were exercised */
    sleep_ms(200);
    CHECK_EQ_INT(__atomic_load_n(&callbacks_run, __ATOMIC_SEQ_CST), callbacks_after_free);
    printf("    stress: %d tasks, %d succeeded, %d cancelled, %d callbacks\n", THREADS * ROUNDS,
           succeeded, cancelled, callbacks_after_free);
}
