/* test_observers.c — event order, late observers, removing observers. */
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "reqlog.h"

#define KIB 1024

static void check_late_observers(fbs_task *t, fbs_task_status final_status);
static void callback_barrier(fbs_task *t, fbs_task_status status);

/* Holds the resumable start request for delay_ms so observers attach before anything moves. */
static void hold_start(int delay_ms) {
    emu_fault_delay(EMU, (fault_match){NULL, "start", NULL, NULL, 1}, delay_ms);
}

TEST(observer_order) {
    fbs_storage *s = new_storage();
    REQUIRE_OK(fbs_storage_set_upload_chunk_size(s, 256 * KIB));
    hold_start(300);
    size_t n = 900 * KIB;
    unsigned char *bytes = random_bytes(n, 1);
    fbs_reference *r = new_ref(s, "observers/order.bin");
    fbs_task *t = NULL;
    event_log log;
    event_log_init(&log);
    REQUIRE_OK(fbs_reference_put_data(r, bytes, n, NULL, &t));
    observe_all(t, &log);
    CHECK_CODE(fbs_task_wait(t, 60000), FBS_OK);
    /* wait returns after SUCCESS observers returned: the event is already recorded */
    CHECK_EQ_INT(event_log_count(&log, FBS_TASK_STATUS_SUCCESS), 1);
    int count = log.count;
    check_late_observers(t, FBS_TASK_STATUS_SUCCESS);
    CHECK_EQ_INT(log.count, count);   /* nothing after SUCCESS */
    check_event_order(&log, FBS_TASK_STATUS_SUCCESS);
    CHECK(event_log_count(&log, FBS_TASK_STATUS_PROGRESS) >= 2);
    event *last_progress = NULL;
    for (int i = 0; i < log.count; i++)
        if (log.events[i].status == FBS_TASK_STATUS_PROGRESS) last_progress = &log.events[i];
    if (last_progress) CHECK_EQ_INT(last_progress->total, n);
    CHECK_EQ_INT(log.events[log.count - 1].bytes, n);
    fbs_task_free(t);
    fbs_reference_free(r);
    free(bytes);
    fbs_storage_free(s);
}

static void count_cb(const fbs_snapshot *snap, void *user_data) {
    (void)snap;
    __atomic_fetch_add((int *)user_data, 1, __ATOMIC_SEQ_CST);
}

/* Waits until *calls reaches want; 1 if it did. */
static int wait_calls(int *calls, int want, int timeout_ms) {
    for (double until = now_s() + timeout_ms / 1000.0; now_s() < until; sleep_ms(1))
        if (__atomic_load_n(calls, __ATOMIC_SEQ_CST) >= want) return 1;
    return __atomic_load_n(calls, __ATOMIC_SEQ_CST) >= want;
}

/* Adds an observer of status, which the task is in, and waits for its at-once call. The callback
 * thread runs at-once calls in the order the observers were added, so once it returns, every call
 * owed to an observer added before it has run: a barrier instead of a sleep. */
static void callback_barrier(fbs_task *t, fbs_task_status status) {
    int calls = 0;
    fbs_observer_handle h = 0;
    REQUIRE_OK(fbs_task_observe(t, status, count_cb, &calls, &h));
    CHECK(wait_calls(&calls, 1, 10000));
    CHECK_CODE(fbs_task_remove_observer(t, h), FBS_OK);
}

/* After the end: a new observer of the final status fires once, at once; observers of every other
 * status (RESUME too: the Apple SDK removes all observers at the end) never fire. */
static void check_late_observers(fbs_task *t, fbs_task_status final_status) {
    int final_calls = 0, other_calls = 0;
    fbs_observer_handle h1 = 0, h2 = 0;
    CHECK_CODE(fbs_task_observe(t, final_status, count_cb, &final_calls, &h1), FBS_OK);
    CHECK_CODE(fbs_task_observe(t, FBS_TASK_STATUS_PROGRESS, count_cb, &other_calls, &h2), FBS_OK);
    CHECK(h1 != 0 && h2 != 0 && h1 != h2);
    fbs_task_status other_final = final_status == FBS_TASK_STATUS_SUCCESS ? FBS_TASK_STATUS_FAILURE
                                                                          : FBS_TASK_STATUS_SUCCESS;
    CHECK_CODE(fbs_task_observe(t, FBS_TASK_STATUS_RESUME, count_cb, &other_calls, NULL), FBS_OK);
    CHECK_CODE(fbs_task_observe(t, FBS_TASK_STATUS_PAUSE, count_cb, &other_calls, NULL), FBS_OK);
    CHECK_CODE(fbs_task_observe(t, other_final, count_cb, &other_calls, NULL), FBS_OK);
    callback_barrier(t, final_status);
    CHECK_EQ_INT(__atomic_load_n(&final_calls, __ATOMIC_SEQ_CST), 1);
    CHECK_EQ_INT(__atomic_load_n(&other_calls, __ATOMIC_SEQ_CST), 0);
    callback_barrier(t, final_status);
    CHECK_EQ_INT(__atomic_load_n(&final_calls, __ATOMIC_SEQ_CST), 1);   /* once only */
}

TEST(observer_order_small_upload_and_finished_task) {
    fbs_storage *s = new_storage();
    emu_fault_delay(EMU, (fault_match){"POST", NULL, "/v0/b/", NULL, 1}, 300);
    fbs_reference *r = new_ref(s, "observers/small.bin");
    fbs_task *t = NULL;
    event_log log;
    event_log_init(&log);
    REQUIRE_OK(fbs_reference_put_data(r, "hello", 5, NULL, &t));
    observe_all(t, &log);
    CHECK_CODE(fbs_task_wait(t, 30000), FBS_OK);
    check_event_order(&log, FBS_TASK_STATUS_SUCCESS);
    check_late_observers(t, FBS_TASK_STATUS_SUCCESS);
    fbs_task_free(t);
    fbs_reference_free(r);
    fbs_storage_free(s);
}

static void pause_in_hook(event_log *log, const fbs_snapshot *s, fbs_task_status as) {
    (void)s;
    if (as == FBS_TASK_STATUS_PROGRESS && log->user == NULL) {
        log->user = (void *)1;
        fbs_task_pause(log->task);
    }
}

TEST(observer_already_reached_status_fires_at_once) {
    fbs_storage *s = new_storage();
    REQUIRE_OK(fbs_storage_set_upload_chunk_size(s, 256 * KIB));
    emu_fault_delay(EMU, (fault_match){NULL, "upload", NULL, NULL, FOREVER}, 100);
    size_t n = 1024 * KIB;
    unsigned char *bytes = random_bytes(n, 2);
    fbs_reference *r = new_ref(s, "observers/late.bin");
    event_log log;
    event_log_init(&log);
    log.hook = pause_in_hook;
    REQUIRE_OK(fbs_reference_put_data(r, bytes, n, NULL, &log.task));
    observe_all(log.task, &log);
    REQUIRE(event_log_wait(&log, FBS_TASK_STATUS_PAUSE, 10000));
    /* the task is paused: a new PAUSE observer fires once, at once, on the callback thread */
    event_log late;
    event_log_init(&late);
    observe(log.task, FBS_TASK_STATUS_PAUSE, &late);
    CHECK(event_log_wait(&late, FBS_TASK_STATUS_PAUSE, 2000));
    /* an observer for a status not reached does not fire */
    event_log none;
    event_log_init(&none);
    observe(log.task, FBS_TASK_STATUS_FAILURE, &none);
    callback_barrier(log.task, FBS_TASK_STATUS_PAUSE);
    CHECK_EQ_INT(late.count, 1);
    CHECK_EQ_INT(late.events[0].on_main_thread, 0);
    CHECK_EQ_INT(none.count, 0);
    REQUIRE_OK(fbs_task_resume(log.task));
    CHECK_CODE(fbs_task_wait(log.task, 60000), FBS_OK);
    CHECK_EQ_INT(none.count, 0);
    CHECK_EQ_INT(late.count, 1);   /* one PAUSE only */
    fbs_task_free(log.task);
    fbs_reference_free(r);
    free(bytes);
    fbs_storage_free(s);
}

TEST(observer_removal) {
    fbs_storage *s = new_storage();
    REQUIRE_OK(fbs_storage_set_upload_chunk_size(s, 256 * KIB));
    hold_start(800);
    size_t n = 700 * KIB;
    unsigned char *bytes = random_bytes(n, 3);
    fbs_reference *r = new_ref(s, "observers/remove.bin");
    fbs_task *t = NULL;
    event_log removed_by_handle, kept_progress, removed_by_status, kept_success, all;
    event_log_init(&removed_by_handle);
    event_log_init(&kept_progress);
    event_log_init(&removed_by_status);
    event_log_init(&kept_success);
    event_log_init(&all);
    REQUIRE_OK(fbs_reference_put_data(r, bytes, n, NULL, &t));
    fbs_observer_handle h1 = observe(t, FBS_TASK_STATUS_PROGRESS, &removed_by_handle);
    fbs_observer_handle h2 = observe(t, FBS_TASK_STATUS_PROGRESS, &kept_progress);
    CHECK(h1 != h2);
    observe(t, FBS_TASK_STATUS_SUCCESS, &removed_by_status);
    observe(t, FBS_TASK_STATUS_SUCCESS, &removed_by_status);
    CHECK_CODE(fbs_task_remove_observer(t, h1), FBS_OK);
    CHECK_CODE(fbs_task_remove_all_observers_for_status(t, FBS_TASK_STATUS_SUCCESS), FBS_OK);
    observe(t, FBS_TASK_STATUS_SUCCESS, &kept_success);   /* added after the removal: fires */
    CHECK_CODE(fbs_task_wait(t, 60000), FBS_OK);
    CHECK_EQ_INT(removed_by_handle.count, 0);
    CHECK_EQ_INT(removed_by_status.count, 0);
    CHECK(event_log_count(&kept_progress, FBS_TASK_STATUS_PROGRESS) >= 1);
    CHECK_EQ_INT(event_log_count(&kept_success, FBS_TASK_STATUS_SUCCESS), 1);
    fbs_task_free(t);

    /* remove all: nothing fires, the upload still completes */
    hold_start(800);
    REQUIRE_OK(fbs_reference_put_data(r, bytes, n, NULL, &t));
    observe_all(t, &all);
    int before = all.count;   /* a RESUME may already have been delivered at once */
    CHECK_CODE(fbs_task_remove_all_observers(t), FBS_OK);
    int after_remove = all.count;
    CHECK(after_remove - before <= 1);
    CHECK_CODE(fbs_task_wait(t, 60000), FBS_OK);
    callback_barrier(t, FBS_TASK_STATUS_SUCCESS);
    CHECK_EQ_INT(all.count, after_remove);
    CHECK_EQ_INT(event_log_count(&all, FBS_TASK_STATUS_SUCCESS), 0);
    size_t got_n = 0;
    unsigned char *got = emu_fetch_object(EMU, "observers/remove.bin", &got_n);
    CHECK(got && bytes_equal(got, got_n, bytes, n));
    free(got);
    fbs_task_free(t);
    fbs_reference_free(r);
    free(bytes);
    fbs_storage_free(s);
}
