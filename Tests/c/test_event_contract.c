/* test_event_contract.c — the event contract of task.h: every PROGRESS before the one terminal
 * event, which is last; a pause from a PROGRESS observer takes effect before a download's end on
 * loopback, however fast its bytes come. */
#include <stdlib.h>

#include "events.h"

#define KIB 1024

/* Hook: the first PROGRESS past 256 KiB pauses the task (log->user marks that it asked). */
static void pause_past_256k(event_log *log, const fbs_snapshot *s, fbs_task_status observed_as) {
    if (observed_as != FBS_TASK_STATUS_PROGRESS || fbs_snapshot_bytes_transferred(s) <= 256 * KIB) return;
    if (__atomic_exchange_n((int *)log->user, 1, __ATOMIC_SEQ_CST)) return;
    fbs_task_pause(log->task);
}

TEST_EX(pause_from_progress_catches_a_fast_download, TEST_NEEDS_EMULATOR, 120) {
    fbs_storage *s = new_storage();
    size_t n = 1024 * KIB;
    unsigned char *bytes = random_bytes(n, 7);
    REQUIRE_OK(upload_bytes(s, "contract/1mb.bin", bytes, n));
    fbs_reference *r = new_ref(s, "contract/1mb.bin");
    char *dest = temp_path("-contract.bin");
    for (int round = 0; round < 20; round++) {
        /* Holds the GET so that the observers attach before a byte moves. */
        emu_fault_delay(EMU, (fault_match){"GET", NULL, NULL, "alt=media", 1}, 100);
        fbs_task *t = NULL;
        event_log log;
        event_log_init(&log);
        int asked = 0;
        log.hook = pause_past_256k;
        log.user = &asked;
        REQUIRE_OK(fbs_reference_write_to_file(r, dest, &t));
        log.task = t;
        observe_all(t, &log);
        REQUIRE(event_log_wait(&log, FBS_TASK_STATUS_PAUSE, 30000));
        CHECK_EQ_INT(event_log_count(&log, FBS_TASK_STATUS_SUCCESS), 0);
        CHECK_CODE(fbs_task_resume(t), FBS_OK);
        CHECK_CODE(fbs_task_wait(t, 60000), FBS_OK);
        check_event_order(&log, FBS_TASK_STATUS_SUCCESS);
        /* The last PROGRESS has the final numbers, and comes before SUCCESS (last). */
        int last_progress = -1;
        for (int i = 0; i < log.count; i++)
            if (log.events[i].status == FBS_TASK_STATUS_PROGRESS) last_progress = i;
        REQUIRE(last_progress >= 0);
        CHECK_EQ_INT(log.events[last_progress].bytes, n);
        CHECK_EQ_INT(log.events[last_progress].total, n);
        size_t got_n = 0;
        unsigned char *got = read_file(dest, &got_n);
        CHECK(got && bytes_equal(got, got_n, bytes, n));
        free(got);
        fbs_task_free(t);
    }
    free(dest);
    fbs_reference_free(r);
    free(bytes);
    fbs_storage_free(s);
}

TEST_EX(small_tasks_end_with_their_last_event, TEST_NEEDS_EMULATOR, 120) {
    fbs_storage *s = new_storage();
    const char text[] = "Hello Swift World";
    char *dest = temp_path("-small.txt");
    for (int i = 0; i < 300; i++) {
        fbs_reference *r = new_ref(s, "contract/small.txt");
        for (int download = 0; download <= 1; download++) {
            fbs_task *t = NULL;
            event_log log;
            event_log_init(&log);
            if (download) REQUIRE_OK(fbs_reference_write_to_file(r, dest, &t));
            else REQUIRE_OK(fbs_reference_put_data(r, text, sizeof text - 1, NULL, &t));
            observe_all(t, &log);
            CHECK_CODE(fbs_task_wait(t, 60000), FBS_OK);
            check_event_order(&log, FBS_TASK_STATUS_SUCCESS);
            fbs_task_free(t);
        }
        fbs_reference_free(r);
    }
    free(dest);
    fbs_storage_free(s);
}
