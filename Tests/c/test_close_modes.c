/* test_close_modes.c — fbs_storage_close(): FBS_CLOSE_KEEP_SESSIONS stops a running upload but
 * keeps its session: when the call returns the FAILURE observer (CANCELLED) has run and the
 * session string is final, no cancel reached the server, and a new storage resumes from it
 * without starting over. FBS_CLOSE_FINISH lets a running upload end first. */
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "harness.h"
#include "reqlog.h"

#define KIB 1024

typedef struct kept {
    fbs_task *task;
    int code;
    char *session;   /* taken in the FAILURE observer, as a program about to exit would */
} kept;

static void keep_session(const fbs_snapshot *s, void *user) {
    kept *k = user;
    k->code = fbs_snapshot_error_code(s);
    if (fbs_task_upload_session(k->task, &k->session) != FBS_OK) k->session = NULL;
}

/* Starts a resumable upload of n bytes whose chunks the emulator delays. */
static fbs_task *slow_upload(fbs_storage *s, const char *path, const char *file, event_log *log) {
    REQUIRE_OK(fbs_storage_set_upload_chunk_size(s, 256 * KIB));
    emu_fault_delay(EMU, (fault_match){NULL, "upload", NULL, NULL, FOREVER}, 150);
    fbs_reference *r = new_ref(s, path);
    fbs_task *t = NULL;
    REQUIRE_OK(fbs_reference_put_file(r, file, NULL, &t));
    observe(t, FBS_TASK_STATUS_PROGRESS, log);
    fbs_reference_free(r);
    return t;
}

TEST(close_keep_sessions_then_resume) {
    size_t n = 2048 * KIB;
    unsigned char *bytes = random_bytes(n, 29);
    char *file = temp_file_with(bytes, n, ".bin");
    char *path = unique_path("close/kept");
    emu_clear(EMU, "requests");
    fbs_storage *s = new_storage();
    event_log log;
    event_log_init(&log);
    kept k = {0};
    k.task = slow_upload(s, path, file, &log);
    REQUIRE_OK(fbs_task_observe(k.task, FBS_TASK_STATUS_FAILURE, keep_session, &k, NULL));
    REQUIRE(event_log_wait(&log, FBS_TASK_STATUS_PROGRESS, 30000));
    double start = now_s();
    CHECK_CODE(fbs_storage_close(s, FBS_CLOSE_KEEP_SESSIONS, 0), FBS_OK);
    CHECK(now_s() - start < 2);
    CHECK_EQ_INT(k.code, FBS_ERR_CANCELLED);   /* delivered before close returned */
    REQUIRE(k.session != NULL);
    CHECK_CODE(fbs_task_wait(k.task, 0), FBS_ERR_CANCELLED);
    fbs_task_free(k.task);
    fbs_storage_free(s);
    emu_wait_idle(EMU, 10000);
    emu_clear(EMU, "faults");

    fbs_storage *again = new_storage();
    fbs_reference *r = new_ref(again, path);
    fbs_task *t = NULL;
    REQUIRE_OK(fbs_reference_put_file_resuming(r, file, k.session, NULL, &t));
    CHECK_CODE(fbs_task_wait(t, 60000), FBS_OK);
    size_t got_n = 0;
    unsigned char *got = emu_fetch_object(EMU, path, &got_n);
    CHECK(got && bytes_equal(got, got_n, bytes, n));
    reqlog requests;
    reqlog_fetch(EMU, &requests);
    CHECK_EQ_INT(reqlog_count(&requests, NULL, NULL, "start"), 1);    /* resumed, not started over */
    CHECK_EQ_INT(reqlog_count(&requests, NULL, NULL, "cancel"), 0);   /* the session was never cancelled */
    reqlog_free(&requests);
    free(got);
    fbs_task_free(t);
    fbs_reference_free(r);
    fbs_storage_free(again);
    fbs_string_free(k.session);
    free(path);
    free(file);
    free(bytes);
}

TEST(close_finish_lets_the_upload_end) {
    size_t n = 768 * KIB;
    unsigned char *bytes = random_bytes(n, 30);
    char *file = temp_file_with(bytes, n, ".bin");
    char *path = unique_path("close/finished");
    fbs_storage *s = new_storage();
    event_log log;
    event_log_init(&log);
    fbs_task *t = slow_upload(s, path, file, &log);
    CHECK_CODE(fbs_storage_close(s, FBS_CLOSE_FINISH, 60), FBS_OK);
    CHECK_CODE(fbs_task_wait(t, 0), FBS_OK);
    emu_clear(EMU, "faults");
    size_t got_n = 0;
    unsigned char *got = emu_fetch_object(EMU, path, &got_n);
    CHECK(got && bytes_equal(got, got_n, bytes, n));
    free(got);
    fbs_task_free(t);
    fbs_storage_free(s);
    free(path);
    free(file);
    free(bytes);
}
