/* test_reentrant.c — callbacks that call back into the library; teardown with work running. */
#include <stdlib.h>
#include <string.h>

#include "events.h"

#define KIB 1024

typedef struct reentry {
    fbs_task *task;
    fbs_storage *storage;
    fbs_reference *ref;
    int calls, rc_pause, rc_resume, rc_cancel, rc_wait, rc_remove, rc_put, rc_meta, rc_free_snap;
    double wait_took;
    fbs_observer_handle own;
    fbs_task *second;
    int64_t meta_size;
} reentry;

static fbs_task *start_upload(fbs_storage *s, const char *path, size_t n, unsigned seed) {
    unsigned char *bytes = random_bytes(n, seed);
    fbs_reference *r = new_ref(s, path);
    fbs_task *t = NULL;
    REQUIRE_OK(fbs_reference_put_data(r, bytes, n, NULL, &t));
    fbs_reference_free(r);
    free(bytes);
    return t;
}

static fbs_storage *chunked_storage(void) {
    fbs_storage *s = new_storage();
    REQUIRE_OK(fbs_storage_set_upload_chunk_size(s, 256 * KIB));
    /* observers attach while the start request is held; chunks go slowly enough to act on */
    emu_fault_delay(EMU, (fault_match){NULL, "start", NULL, NULL, FOREVER}, 300);
    emu_fault_delay(EMU, (fault_match){NULL, "upload", NULL, NULL, FOREVER}, 50);
    return s;
}

/* PROGRESS pauses; PAUSE resumes — both from the callback thread. */
static void pause_then_resume(event_log *log, const fbs_snapshot *s, fbs_task_status as) {
    reentry *re = log->user;
    (void)s;
    if (as == FBS_TASK_STATUS_PROGRESS && re->calls == 0) { re->calls++; re->rc_pause = fbs_task_pause(log->task); }
    if (as == FBS_TASK_STATUS_PAUSE) re->rc_resume = fbs_task_resume(log->task);
}

TEST(reentrant_pause_and_resume_from_callbacks) {
    fbs_storage *s = chunked_storage();
    reentry re = {0};
    event_log log;
    event_log_init(&log);
    log.hook = pause_then_resume;
    log.user = &re;
    log.task = start_upload(s, "re/pause.bin", 800 * KIB, 51);
    observe_all(log.task, &log);
    CHECK_CODE(fbs_task_wait(log.task, 30000), FBS_OK);
    CHECK_EQ_INT(re.rc_pause, FBS_OK);
    CHECK_EQ_INT(re.rc_resume, FBS_OK);
    CHECK_EQ_INT(event_log_count(&log, FBS_TASK_STATUS_PAUSE), 1);
    CHECK_EQ_INT(event_log_count(&log, FBS_TASK_STATUS_RESUME), 2);
    check_event_order(&log, FBS_TASK_STATUS_SUCCESS);
    fbs_task_free(log.task);
    fbs_storage_free(s);
}

static void cancel_and_wait_in_progress(event_log *log, const fbs_snapshot *s, fbs_task_status as) {
    reentry *re = log->user;
    (void)s;
    if (as != FBS_TASK_STATUS_PROGRESS || re->calls++ != 0) return;
    double start = now_s();
    re->rc_wait = fbs_task_wait(log->task, -1);   /* would deadlock: refused */
    re->wait_took = now_s() - start;
    re->rc_cancel = fbs_task_cancel(log->task);
}

TEST(reentrant_cancel_and_wait_on_own_task) {
    fbs_storage *s = chunked_storage();
    reentry re = {0};
    event_log log;
    event_log_init(&log);
    log.hook = cancel_and_wait_in_progress;
    log.user = &re;
    log.task = start_upload(s, "re/cancel.bin", 800 * KIB, 52);
    observe_all(log.task, &log);
    CHECK_CODE(fbs_task_wait(log.task, 30000), FBS_ERR_CANCELLED);
    CHECK_EQ_INT(re.rc_wait, FBS_ERR_INVALID_ARGUMENT);
    CHECK(re.wait_took < 1.0);
    CHECK_EQ_INT(re.rc_cancel, FBS_OK);
    check_event_order(&log, FBS_TASK_STATUS_FAILURE);
    CHECK_EQ_INT(log.events[log.count - 1].error_code, FBS_ERR_CANCELLED);
    fbs_task_free(log.task);
    fbs_storage_free(s);
}

static void remove_self(const fbs_snapshot *s, void *u) {
    reentry *re = u;
    (void)s;
    re->calls++;
    re->rc_remove = fbs_task_remove_observer(re->task, re->own);
}

static void snapshot_free_sets_error(const fbs_snapshot *s, void *u) {
    reentry *re = u;
    fbs_snapshot_free((fbs_snapshot *)s);   /* not the caller's: refused */
    const char *msg = fbs_last_error_message();
    re->rc_free_snap = msg && msg[0] ? FBS_ERR_INVALID_ARGUMENT : FBS_OK;
    re->meta_size = fbs_snapshot_bytes_transferred(s);   /* and still usable */
}

TEST(reentrant_remove_own_observer) {
    fbs_storage *s = chunked_storage();
    reentry re = {0}, probe = {0};
    re.task = start_upload(s, "re/remove.bin", 800 * KIB, 53);
    REQUIRE_OK(fbs_task_observe(re.task, FBS_TASK_STATUS_PROGRESS, remove_self, &re, &re.own));
    fbs_observer_handle ph = 0;
    REQUIRE_OK(fbs_task_observe(re.task, FBS_TASK_STATUS_PROGRESS, snapshot_free_sets_error, &probe, &ph));
    CHECK_CODE(fbs_task_wait(re.task, 30000), FBS_OK);
    CHECK_EQ_INT(re.calls, 1);
    CHECK_EQ_INT(re.rc_remove, FBS_OK);
    CHECK_EQ_INT(probe.rc_free_snap, FBS_ERR_INVALID_ARGUMENT);
    CHECK(probe.meta_size >= 0);
    fbs_task_free(re.task);
    fbs_storage_free(s);
}

static void upload_more_on_success(const fbs_snapshot *snap, void *u) {
    reentry *re = u;
    re->calls++;
    fbs_reference *root = NULL, *second = NULL;
    fbs_reference_root(fbs_snapshot_reference(snap), &root);
    fbs_reference_child(root, "re/second.bin", &second);
    re->rc_put = fbs_reference_put_data(second, "second", 6, NULL, &re->second);
    fbs_metadata *m = NULL;   /* a blocking operation from the callback thread */
    re->rc_meta = fbs_reference_get_metadata(fbs_snapshot_reference(snap), &m);
    re->meta_size = fbs_metadata_size(m);
    fbs_metadata_free(m);
    fbs_reference_free(second);
    fbs_reference_free(root);
}

TEST(reentrant_start_upload_and_block_in_callback) {
    fbs_storage *s = new_storage();
    reentry re = {0};
    fbs_task *first = start_upload(s, "re/first.bin", 1000, 54);
    fbs_observer_handle h = 0;
    REQUIRE_OK(fbs_task_observe(first, FBS_TASK_STATUS_SUCCESS, upload_more_on_success, &re, &h));
    CHECK_CODE(fbs_task_wait(first, 30000), FBS_OK);
    CHECK_EQ_INT(re.calls, 1);
    CHECK_EQ_INT(re.rc_put, FBS_OK);
    CHECK_EQ_INT(re.rc_meta, FBS_OK);
    CHECK_EQ_INT(re.meta_size, 1000);
    REQUIRE(re.second != NULL);
    CHECK_CODE(fbs_task_wait(re.second, 30000), FBS_OK);
    size_t n = 0;
    unsigned char *got = emu_fetch_object(EMU, "re/second.bin", &n);
    CHECK(got && bytes_equal(got, n, "second", 6));
    free(got);
    fbs_task_free(re.second);
    fbs_task_free(first);
    fbs_storage_free(s);
}

TEST(reentrant_storage_free_cancels_running_task) {
    fbs_storage *s = chunked_storage();
    event_log log;
    event_log_init(&log);
    fbs_task *t = start_upload(s, "re/freed.bin", 2048 * KIB, 55);
    observe_all(t, &log);
    REQUIRE(event_log_wait(&log, FBS_TASK_STATUS_PROGRESS, 10000));
    double start = now_s();
    fbs_storage_free(s);
    CHECK(now_s() - start < 5);
    /* the FAILURE observer ran before free returned */
    CHECK_EQ_INT(event_log_count(&log, FBS_TASK_STATUS_FAILURE), 1);
    if (log.count) CHECK_EQ_INT(log.events[log.count - 1].error_code, FBS_ERR_CANCELLED);
    int count = log.count;
    sleep_ms(200);
    CHECK_EQ_INT(log.count, count);   /* nothing afterwards */
    CHECK_CODE(fbs_task_wait(t, 1000), FBS_ERR_CANCELLED);
    fbs_task_free(t);
}

static void free_storage_in_callback(event_log *log, const fbs_snapshot *s, fbs_task_status as) {
    reentry *re = log->user;
    (void)s;
    if (as != FBS_TASK_STATUS_PROGRESS || re->calls++ != 0) return;
    double start = now_s();
    fbs_storage_free(re->storage);   /* from the callback thread: returns at once */
    re->wait_took = now_s() - start;
}

TEST(reentrant_storage_free_from_callback) {
    reentry re = {0};
    re.storage = chunked_storage();
    event_log log;
    event_log_init(&log);
    log.hook = free_storage_in_callback;
    log.user = &re;
    log.task = start_upload(re.storage, "re/free-in-cb.bin", 2048 * KIB, 56);
    observe_all(log.task, &log);
    CHECK_CODE(fbs_task_wait(log.task, 10000), FBS_ERR_CANCELLED);
    CHECK(re.wait_took < 1.0);
    CHECK_EQ_INT(event_log_count(&log, FBS_TASK_STATUS_FAILURE), 1);
    fbs_task_free(log.task);
}
