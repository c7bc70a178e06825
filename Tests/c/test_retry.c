/* test_retry.c — retries (503 + Retry-After, dropped connections), deadlines, error mapping. */
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "reqlog.h"

#define KIB 1024

static void check_stored(const char *path, const unsigned char *bytes, size_t n) {
    size_t got_n = 0;
    unsigned char *got = emu_fetch_object(EMU, path, &got_n);
    if (got && bytes_equal(got, got_n, bytes, n)) check_pass();
    else check_fail(__FILE__, __LINE__, "%s: stored %zu bytes differ from the %zu sent", path, got ? got_n : 0, n);
    free(got);
}

static size_t responses_with(const reqlog *log, int status) {
    size_t c = 0;
    for (size_t i = 0; i < log->count; i++) c += log->items[i].status == status;
    return c;
}

TEST(retry_503_with_retry_after_resumable) {
    fbs_storage *s = new_storage();
    REQUIRE_OK(fbs_storage_set_upload_chunk_size(s, 256 * KIB));
    emu_fault_status(EMU, (fault_match){NULL, "upload", NULL, NULL, 2}, 503, 1);
    size_t n = 700 * KIB;
    unsigned char *bytes = random_bytes(n, 31);
    double start = now_s();
    CHECK_CODE(upload_bytes(s, "retry/resumable.bin", bytes, n), FBS_OK);
    CHECK(now_s() - start >= 1.9);   /* Retry-After: 1, twice */
    check_stored("retry/resumable.bin", bytes, n);
    reqlog log;
    reqlog_fetch(EMU, &log);
    CHECK_EQ_INT(responses_with(&log, 503), 2);
    reqlog_free(&log);
    free(bytes);
    fbs_storage_free(s);
}

TEST(retry_503_multipart_and_operation) {
    fbs_storage *s = new_storage();
    emu_fault_status(EMU, (fault_match){"POST", NULL, "/v0/b/", NULL, 2}, 503, 1);
    CHECK_CODE(upload_bytes(s, "retry/small.bin", "small", 5), FBS_OK);
    check_stored("retry/small.bin", (const unsigned char *)"small", 5);
    emu_fault_status(EMU, (fault_match){"GET", NULL, object_prefix("retry/small.bin"), NULL, 1}, 500, 0);
    emu_fault_status(EMU, (fault_match){"GET", NULL, object_prefix("retry/small.bin"), NULL, 1}, 429, 1);
    fbs_reference *r = new_ref(s, "retry/small.bin");
    fbs_metadata *m = NULL;
    double start = now_s();
    CHECK_CODE(fbs_reference_get_metadata(r, &m), FBS_OK);
    CHECK(now_s() - start >= 0.9);
    CHECK_EQ_INT(fbs_metadata_size(m), 5);
    fbs_metadata_free(m);
    fbs_reference_free(r);
    fbs_storage_free(s);
}

TEST(resume_after_dropped_connection) {
    fbs_storage *s = new_storage();
    REQUIRE_OK(fbs_storage_set_upload_chunk_size(s, 256 * KIB));
    /* the second chunk's connection drops after 100000 body bytes */
    emu_fault_drop(EMU, (fault_match){NULL, "upload", NULL, NULL, 1}, 100000);
    size_t n = 1024 * KIB + 7;
    unsigned char *bytes = random_bytes(n, 32);
    CHECK_CODE(upload_bytes(s, "retry/dropped.bin", bytes, n), FBS_OK);
    check_stored("retry/dropped.bin", bytes, n);
    reqlog log;
    reqlog_fetch(EMU, &log);
    if (reqlog_count(&log, NULL, NULL, "query") >= 1) check_pass();
    else { check_fail(__FILE__, __LINE__, "no query after the dropped chunk"); reqlog_dump(&log); }
    reqlog_free(&log);
    free(bytes);
    fbs_storage_free(s);
}

TEST(deadline_upload_always_503) {
    fbs_storage *s = new_storage();
    REQUIRE_OK(fbs_storage_set_max_upload_retry_time(s, 2));
    emu_fault_status(EMU, (fault_match){"POST", NULL, NULL, NULL, FOREVER}, 503, 0);
    double start = now_s();
    int rc = upload_bytes(s, "retry/never.bin", "x", 1);
    const char *msg = fbs_last_error_message();
    double took = now_s() - start;
    CHECK_EQ_INT(rc, FBS_ERR_RETRY_LIMIT_EXCEEDED);
    CHECK(strstr(msg, "503") != NULL);   /* names the last cause */
    CHECK(took < 8.0);                   /* may stop early when the next wait would pass the deadline */
    reqlog log;
    reqlog_fetch(EMU, &log);
    CHECK(responses_with(&log, 503) >= 2);   /* it did retry */
    reqlog_free(&log);
    fbs_storage_free(s);
}

TEST(deadline_resumable_always_503) {
    fbs_storage *s = new_storage();
    REQUIRE_OK(fbs_storage_set_max_upload_retry_time(s, 2));
    REQUIRE_OK(fbs_storage_set_upload_chunk_size(s, 256 * KIB));
    emu_fault_status(EMU, (fault_match){NULL, "upload", NULL, NULL, FOREVER}, 503, 0);
    unsigned char *bytes = random_bytes(600 * KIB, 33);
    event_log log;
    event_log_init(&log);
    fbs_reference *r = new_ref(s, "retry/never-resumable.bin");
    fbs_task *t = NULL;
    double start = now_s();
    REQUIRE_OK(fbs_reference_put_data(r, bytes, 600 * KIB, NULL, &t));
    observe(t, FBS_TASK_STATUS_FAILURE, &log);
    CHECK_CODE(fbs_task_wait(t, 20000), FBS_ERR_RETRY_LIMIT_EXCEEDED);
    CHECK(now_s() - start < 8.0);
    CHECK_EQ_INT(log.count, 1);
    if (log.count) CHECK_EQ_INT(log.events[0].error_code, FBS_ERR_RETRY_LIMIT_EXCEEDED);
    fbs_task_free(t);
    fbs_reference_free(r);
    free(bytes);
    fbs_storage_free(s);
}

TEST(deadline_operation_and_429) {
    fbs_storage *s = new_storage();
    REQUIRE_OK(upload_bytes(s, "retry/op.bin", "op", 2));
    REQUIRE_OK(fbs_storage_set_max_operation_retry_time(s, 1.5));
    fbs_reference *r = new_ref(s, "retry/op.bin");
    fbs_metadata *m = NULL;
    emu_fault_status(EMU, (fault_match){"GET", NULL, object_prefix("retry/op.bin"), NULL, FOREVER}, 503, 0);
    double start = now_s();
    CHECK_CODE(fbs_reference_get_metadata(r, &m), FBS_ERR_RETRY_LIMIT_EXCEEDED);
    CHECK(now_s() - start < 6.0);
    emu_reset(EMU);
    REQUIRE_OK(upload_bytes(s, "retry/op.bin", "op", 2));
    emu_fault_status(EMU, (fault_match){"GET", NULL, object_prefix("retry/op.bin"), NULL, FOREVER}, 429, 0);
    CHECK_CODE(fbs_reference_get_metadata(r, &m), FBS_ERR_QUOTA_EXCEEDED);   /* 429, retries spent */
    CHECK_EQ_INT(fbs_last_error_http_status(), 429);
    CHECK(m == NULL);
    fbs_reference_free(r);
    fbs_storage_free(s);
}

TEST(error_mapping_by_status) {
    fbs_storage *s = new_storage();
    REQUIRE_OK(upload_bytes(s, "errors/x.bin", "x", 1));
    fbs_reference *r = new_ref(s, "errors/x.bin");
    static const struct { int status, code; } cases[] = {
        {401, FBS_ERR_UNAUTHENTICATED}, {402, FBS_ERR_QUOTA_EXCEEDED},
        {403, FBS_ERR_UNAUTHORIZED},    {404, FBS_ERR_OBJECT_NOT_FOUND},
        {418, FBS_ERR_UNKNOWN},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        /* 401 is retried once after a token refresh: fail both tries */
        emu_fault_status(EMU, (fault_match){"GET", NULL, object_prefix("errors/x.bin"), NULL, 2}, cases[i].status, 0);
        fbs_metadata *m = NULL;
        char what[64];
        snprintf(what, sizeof what, "get_metadata with HTTP %d", cases[i].status);
        check_code(fbs_reference_get_metadata(r, &m), cases[i].code, what, __FILE__, __LINE__);
        CHECK_EQ_INT(fbs_last_error_http_status(), cases[i].status);
        if (cases[i].status == 418) CHECK(strstr(fbs_last_error_message(), "418") != NULL);
        emu_reset(EMU);
        REQUIRE_OK(upload_bytes(s, "errors/x.bin", "x", 1));
    }
    /* a real 404 carries the server's body */
    fbs_reference *missing = new_ref(s, "errors/missing.bin");
    fbs_metadata *m = NULL;
    CHECK_CODE(fbs_reference_get_metadata(missing, &m), FBS_ERR_OBJECT_NOT_FOUND);
    CHECK_EQ_INT(fbs_last_error_http_status(), 404);
    CHECK(fbs_last_error_server_response() != NULL);
    fbs_reference_free(missing);
    fbs_reference_free(r);
    fbs_storage_free(s);
}
