/* test_resume_checks.c — a resume never stores a mix of two files: put_file_resuming proves,
 * before it sends a byte, that the local file still holds the bytes the session string vouches
 * for; a session string that vouches for less than the server has starts over; a file that
 * changes size during an upload fails before anything is finalized. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reqlog.h"

#define KIB 1024
#define CHUNK (256 * KIB)

static void wait_paused(fbs_task *t) {
    for (double until = now_s() + 20; now_s() < until; sleep_ms(2)) {
        fbs_snapshot *snap = NULL;
        REQUIRE_OK(fbs_task_snapshot(t, &snap));
        fbs_task_status st = fbs_snapshot_status(snap);
        fbs_snapshot_free(snap);
        if (st == FBS_TASK_STATUS_PAUSE) return;
    }
    check_fail(__FILE__, __LINE__, "the task did not pause");
}

/* Starts put_file of file to path in CHUNK-sized chunks, each held 50 ms by the emulator. */
static fbs_task *slow_upload(fbs_storage *s, const char *file, const char *path, fbs_reference **ref) {
    REQUIRE_OK(fbs_storage_set_upload_chunk_size(s, CHUNK));
    emu_fault_delay(EMU, (fault_match){NULL, "upload", NULL, NULL, FOREVER}, 50);
    *ref = new_ref(s, path);
    fbs_task *t = NULL;
    REQUIRE_OK(fbs_reference_put_file(*ref, file, NULL, &t));
    return t;
}

/* Starts a slow put_file, waits until `bytes` went out, pauses and returns the session string
 * taken then (it vouches for every byte read so far). */
static char *paused_session(fbs_storage *s, const char *file, const char *path, int64_t bytes, fbs_task **task) {
    fbs_reference *r = NULL;
    *task = slow_upload(s, file, path, &r);
    REQUIRE(wait_for_bytes(*task, bytes, 20000));
    REQUIRE_OK(fbs_task_pause(*task));
    wait_paused(*task);
    char *session = NULL;
    REQUIRE_OK(fbs_task_upload_session(*task, &session));
    REQUIRE(session != NULL);
    fbs_reference_free(r);
    emu_clear(EMU, "faults");
    emu_wait_idle(EMU, 10000);   /* a chunk sent before the pause lands now, not during a resume */
    return session;
}

static void write_file(const char *file, const void *bytes, size_t n) {
    FILE *f = fopen(file, "wb");
    REQUIRE(f && fwrite(bytes, 1, n, f) == n && fclose(f) == 0);
}

static void check_object(const char *path, const void *bytes, size_t n) {
    size_t got_n = 0;
    unsigned char *got = emu_fetch_object(EMU, path, &got_n);
    CHECK(got && bytes_equal(got, got_n, bytes, n));
    free(got);
}

TEST(resume_refuses_a_changed_file_and_leaves_the_object) {
    const size_t n = 2 * 1024 * KIB;
    unsigned char *bytes = random_bytes(n, 81);
    const char old[] = "the good object";
    char *file = temp_file_with(bytes, n, ".bin");
    char *path = unique_path("resume/changed");
    emu_put_object(EMU, path, old, sizeof old);
    fbs_storage *s = new_storage();
    fbs_task *t = NULL;
    char *session = paused_session(s, file, path, 2 * CHUNK, &t);
    CHECK(strstr(session, "\"verifiedBytes\":0,") == NULL);   /* it vouches for what was read */
    fbs_reference *r = new_ref(s, path);
    fbs_task *resumed = NULL;
    emu_clear(EMU, "requests");

    bytes[CHUNK / 2] ^= 0x5A;   /* one byte the server already has */
    write_file(file, bytes, n);
    CHECK_CODE(fbs_reference_put_file_resuming(r, file, session, NULL, &resumed), FBS_ERR_INVALID_ARGUMENT);
    CHECK(resumed == NULL);
    CHECK(strstr(fbs_last_error_message(), "differ") && strstr(fbs_last_error_message(), "changed"));

    bytes[CHUNK / 2] ^= 0x5A;
    write_file(file, bytes, n - 1);   /* one byte shorter */
    CHECK_CODE(fbs_reference_put_file_resuming(r, file, session, NULL, &resumed), FBS_ERR_INVALID_ARGUMENT);
    CHECK(strstr(fbs_last_error_message(), "changed since the session was taken") != NULL);

    reqlog log;
    reqlog_fetch(EMU, &log);
    CHECK_EQ_INT(log.count, 0);   /* refused before a byte was sent */
    reqlog_free(&log);
    check_object(path, old, sizeof old);

    write_file(file, bytes, n);   /* the same bytes again: the resume proceeds */
    REQUIRE_OK(fbs_reference_put_file_resuming(r, file, session, NULL, &resumed));
    CHECK_CODE(fbs_task_wait(resumed, 60000), FBS_OK);
    check_object(path, bytes, n);
    fbs_task_free(resumed);
    fbs_task_free(t);
    fbs_reference_free(r);
    fbs_storage_free(s);
    free(session);
    free(path);
    free(file);
    free(bytes);
}

TEST(resume_with_a_stale_session_string_starts_over) {
    const size_t n = 2 * 1024 * KIB;
    unsigned char *bytes = random_bytes(n, 82);
    char *file = temp_file_with(bytes, n, ".bin");
    char *path = unique_path("resume/stale");
    fbs_storage *s = new_storage();
    fbs_reference *r = NULL;
    fbs_task *t = slow_upload(s, file, path, &r);
    char *stale = NULL;
    while (!stale) {   /* the first string: it vouches for at most the first chunk */
        REQUIRE_OK(fbs_task_upload_session(t, &stale));
        if (!stale) sleep_ms(1);
    }
    REQUIRE(wait_for_bytes(t, 4 * CHUNK, 20000));   /* the server now has more than that */
    REQUIRE_OK(fbs_task_pause(t));
    wait_paused(t);
    emu_clear(EMU, "faults");
    emu_wait_idle(EMU, 10000);
    emu_clear(EMU, "requests");

    fbs_task *resumed = NULL;
    REQUIRE_OK(fbs_reference_put_file_resuming(r, file, stale, NULL, &resumed));
    CHECK_CODE(fbs_task_wait(resumed, 60000), FBS_OK);
    check_object(path, bytes, n);
    reqlog log;
    reqlog_fetch(EMU, &log);
    CHECK_EQ_INT(reqlog_count(&log, NULL, NULL, "query"), 1);
    CHECK_EQ_INT(reqlog_count(&log, NULL, NULL, "start"), 1);   /* started over */
    reqlog_free(&log);
    fbs_task_free(resumed);
    fbs_task_free(t);
    fbs_reference_free(r);
    fbs_storage_free(s);
    free(stale);
    free(path);
    free(file);
    free(bytes);
}

/* The file at `file` changes size after the first chunk: the upload fails with INVALID_ARGUMENT
 * (never retried) and nothing is finalized. */
static void upload_of_changing_file_fails(size_t new_size) {
    const size_t n = 2 * 1024 * KIB;
    unsigned char *bytes = random_bytes(n + CHUNK, 83);
    char *file = temp_file_with(bytes, n, ".bin");
    char *path = unique_path("resume/resized");
    fbs_storage *s = new_storage();
    fbs_reference *r = NULL;
    fbs_task *t = slow_upload(s, file, path, &r);
    REQUIRE(wait_for_bytes(t, CHUNK, 20000));
    write_file(file, bytes, new_size);
    double start = now_s();
    CHECK_CODE(fbs_task_wait(t, 30000), FBS_ERR_INVALID_ARGUMENT);
    CHECK(now_s() - start < 5);
    CHECK(strstr(fbs_last_error_message(), "changed size while it was uploaded") != NULL);
    size_t got_n = 0;
    unsigned char *got = emu_fetch_object(EMU, path, &got_n);
    CHECK(got == NULL);   /* not finalized */
    free(got);
    fbs_task_free(t);
    fbs_reference_free(r);
    fbs_storage_free(s);
    free(path);
    free(file);
    free(bytes);
}

TEST(upload_of_a_shrinking_file_fails_before_finalize) { upload_of_changing_file_fails(CHUNK + CHUNK / 2); }
TEST(upload_of_a_growing_file_fails_before_finalize) { upload_of_changing_file_fails(2 * 1024 * KIB + CHUNK); }
