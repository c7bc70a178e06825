/* test_control.c — pause/resume and cancel of uploads. */
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "reqlog.h"

#define KIB 1024

static int64_t snapshot_bytes(fbs_task *t, fbs_task_status *status) {
    fbs_snapshot *s = NULL;
    if (fbs_task_snapshot(t, &s) != FBS_OK) return -2;
    int64_t b = fbs_snapshot_bytes_transferred(s);
    if (status) *status = fbs_snapshot_status(s);
    fbs_snapshot_free(s);
    return b;
}

/* Starts a small upload (one request) that the server holds for hold_ms before answering. */
static fbs_task *start_held_upload(fbs_reference *r, const char *text, int hold_ms) {
    emu_fault_delay(EMU, (fault_match){"POST", NULL, "/v0/b/", NULL, 1}, hold_ms);
    fbs_task *t = NULL;
    REQUIRE_OK(fbs_reference_put_data(r, text, strlen(text), NULL, &t));
    return t;
}

TEST(pause_and_resume_upload) {
    fbs_storage *s = new_storage();
    REQUIRE_OK(fbs_storage_set_upload_chunk_size(s, 256 * KIB));
    emu_fault_delay(EMU, (fault_match){NULL, "upload", NULL, NULL, FOREVER}, 150);
    size_t n = 2048 * KIB;
    unsigned char *bytes = random_bytes(n, 21);
    fbs_reference *r = new_ref(s, "control/paused.bin");
    fbs_task *t = NULL;
    event_log log;
    event_log_init(&log);
    REQUIRE_OK(fbs_reference_put_data(r, bytes, n, NULL, &t));
    observe_all(t, &log);
    REQUIRE(wait_for_bytes(t, 512 * KIB, 20000));
    CHECK_CODE(fbs_task_pause(t), FBS_OK);
    CHECK_CODE(fbs_task_pause(t), FBS_OK);   /* pausing a paused task does nothing */
    REQUIRE(event_log_wait(&log, FBS_TASK_STATUS_PAUSE, 2000));   /* within ~100 ms + slack */
    fbs_task_status st = FBS_TASK_STATUS_UNKNOWN;
    int64_t at_pause = snapshot_bytes(t, &st);
    CHECK_EQ_INT(st, FBS_TASK_STATUS_PAUSE);
    CHECK(at_pause >= 512 * KIB && at_pause < (int64_t)n);
    int events_at_pause = log.count;
    sleep_ms(600);
    CHECK_EQ_INT(snapshot_bytes(t, NULL), at_pause);   /* nothing moves while paused */
    CHECK_EQ_INT(log.count, events_at_pause);
    CHECK_EQ_INT(event_log_count(&log, FBS_TASK_STATUS_PAUSE), 1);
    CHECK_CODE(fbs_task_wait(t, 100), FBS_ERR_TIMEOUT);   /* still paused */

    CHECK_CODE(fbs_task_resume(t), FBS_OK);
    CHECK_CODE(fbs_task_resume(t), FBS_OK);   /* resuming a running task does nothing */
    CHECK_CODE(fbs_task_wait(t, 60000), FBS_OK);
    CHECK_EQ_INT(event_log_count(&log, FBS_TASK_STATUS_RESUME), 2);   /* start + resume */
    CHECK_EQ_INT(event_log_count(&log, FBS_TASK_STATUS_PAUSE), 1);
    check_event_order(&log, FBS_TASK_STATUS_SUCCESS);
    size_t got_n = 0;
    unsigned char *got = emu_fetch_object(EMU, "control/paused.bin", &got_n);
    CHECK(got && bytes_equal(got, got_n, bytes, n));
    free(got);

    /* the server was asked how much it has, and the upload went on from there, not from 0 */
    reqlog rl;
    reqlog_fetch(EMU, &rl);
    size_t first_query = rl.count;
    for (size_t i = 0; i < rl.count && first_query == rl.count; i++)
        if (strstr(rl.items[i].command, "query")) first_query = i;
    CHECK(first_query < rl.count);
    long long resent_from_zero = 0, sent_after = 0;
    for (size_t i = first_query; i < rl.count; i++)
        if (strstr(rl.items[i].command, "upload")) {
            if (rl.items[i].offset == 0) resent_from_zero++;
            if (rl.items[i].body_bytes > 0) sent_after += rl.items[i].body_bytes;
        }
    CHECK_EQ_INT(resent_from_zero, 0);
    if (sent_after > (long long)n - 256 * KIB) {
        check_fail(__FILE__, __LINE__, "after resume %lld bytes were sent for %zu", sent_after, n);
        reqlog_dump(&rl);
    }
    reqlog_free(&rl);
    fbs_task_free(t);
    fbs_reference_free(r);
    free(bytes);
    fbs_storage_free(s);
}

/* A wait that times out says so with its own code and message; the task goes on to its end. */
TEST(wait_timeout_leaves_task_running) {
    fbs_storage *s = new_storage();
    fbs_reference *r = new_ref(s, "control/held.txt");
    fbs_task *t = start_held_upload(r, "held", 1500);   /* cannot end within 100 ms */
    CHECK_CODE(fbs_task_wait(t, 100), FBS_ERR_TIMEOUT);
    CHECK(strstr(fbs_last_error_message(), "Timed out after 100 ms") != NULL);
    CHECK_CODE(fbs_task_wait(t, 0), FBS_ERR_TIMEOUT);   /* 0 only looks */
    CHECK_STR(fbs_error_name(FBS_ERR_TIMEOUT), "FBS_ERR_TIMEOUT");
    fbs_task_status st = FBS_TASK_STATUS_UNKNOWN;
    snapshot_bytes(t, &st);
    CHECK(st != FBS_TASK_STATUS_SUCCESS && st != FBS_TASK_STATUS_FAILURE);
    CHECK_CODE(fbs_task_wait(t, 30000), FBS_OK);
    size_t got_n = 0;
    unsigned char *got = emu_fetch_object(EMU, "control/held.txt", &got_n);
    CHECK(got && bytes_equal(got, got_n, "held", 4));
    free(got);
    fbs_task_free(t);
    fbs_reference_free(r);
    fbs_storage_free(s);
}

TEST(cancel_upload) {
    fbs_storage *s = new_storage();
    REQUIRE_OK(fbs_storage_set_upload_chunk_size(s, 256 * KIB));
    emu_fault_delay(EMU, (fault_match){NULL, "upload", NULL, NULL, FOREVER}, 150);
    size_t n = 2048 * KIB;
    unsigned char *bytes = random_bytes(n, 22);
    fbs_reference *r = new_ref(s, "control/cancelled.bin");
    fbs_task *t = NULL;
    event_log log;
    event_log_init(&log);
    REQUIRE_OK(fbs_reference_put_data(r, bytes, n, NULL, &t));
    observe_all(t, &log);
    REQUIRE(wait_for_bytes(t, 256 * KIB, 20000));
    double start = now_s();
    CHECK_CODE(fbs_task_cancel(t), FBS_OK);
    CHECK_CODE(fbs_task_wait(t, 10000), FBS_ERR_CANCELLED);
    CHECK(now_s() - start < 3);
    CHECK_EQ_INT(event_log_count(&log, FBS_TASK_STATUS_FAILURE), 1);
    CHECK_EQ_INT(log.events[log.count - 1].error_code, FBS_ERR_CANCELLED);
    check_event_order(&log, FBS_TASK_STATUS_FAILURE);
    fbs_snapshot *snap = NULL;
    REQUIRE_OK(fbs_task_snapshot(t, &snap));
    CHECK_EQ_INT(fbs_snapshot_status(snap), FBS_TASK_STATUS_FAILURE);
    CHECK_EQ_INT(fbs_snapshot_error_code(snap), FBS_ERR_CANCELLED);
    CHECK(fbs_snapshot_error_message(snap) && fbs_snapshot_error_message(snap)[0]);
    fbs_snapshot_free(snap);
    CHECK_CODE(fbs_task_resume(t), FBS_OK);   /* finished: does nothing */
    sleep_ms(300);
    CHECK_EQ_INT(event_log_count(&log, FBS_TASK_STATUS_RESUME), 1);
    fbs_metadata *m = NULL;
    CHECK_CODE(fbs_reference_get_metadata(r, &m), FBS_ERR_OBJECT_NOT_FOUND);
    CHECK(m == NULL);
    fbs_task_free(t);

    /* cancel while paused */
    REQUIRE_OK(fbs_reference_put_data(r, bytes, n, NULL, &t));
    REQUIRE(wait_for_bytes(t, 256 * KIB, 20000));
    CHECK_CODE(fbs_task_pause(t), FBS_OK);
    CHECK_CODE(fbs_task_cancel(t), FBS_OK);
    CHECK_CODE(fbs_task_wait(t, 10000), FBS_ERR_CANCELLED);
    fbs_task_free(t);
    fbs_reference_free(r);
    free(bytes);
    fbs_storage_free(s);
}

TEST(cancel_small_upload_immediately) {
    fbs_storage *s = new_storage();
    fbs_reference *r = new_ref(s, "control/small-cancel.bin");
    fbs_task *t = start_held_upload(r, "abc", 500);
    CHECK_CODE(fbs_task_cancel(t), FBS_OK);
    CHECK_CODE(fbs_task_wait(t, 10000), FBS_ERR_CANCELLED);
    fbs_task_free(t);
    fbs_reference_free(r);
    fbs_storage_free(s);
}
