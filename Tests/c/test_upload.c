/* test_upload.c — uploads of every size, by bytes and by file, read back byte for byte. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "reqlog.h"

#define KIB 1024
#define MIB (1024 * 1024)

/* Uploads n random bytes with put_data or put_file, waits, and compares the stored bytes. */
static void upload_and_verify(fbs_storage *s, size_t n, int by_file, unsigned seed) {
    char *path = unique_path(by_file ? "sizes/file" : "sizes/data");
    unsigned char *bytes = random_bytes(n, seed);
    fbs_reference *r = new_ref(s, path);
    fbs_task *t = NULL;
    char *file = by_file ? temp_file_with(bytes, n, ".bin") : NULL;
    if (by_file) REQUIRE_OK(fbs_reference_put_file(r, file, NULL, &t));
    else REQUIRE_OK(fbs_reference_put_data(r, bytes, n, NULL, &t));
    if (!check_code(fbs_task_wait(t, 120000), FBS_OK, by_file ? "put_file wait" : "put_data wait",
                    __FILE__, __LINE__))
        printf("      (size %zu)\n", n);
    fbs_snapshot *snap = NULL;
    REQUIRE_OK(fbs_task_snapshot(t, &snap));
    CHECK_EQ_INT(fbs_snapshot_status(snap), FBS_TASK_STATUS_SUCCESS);
    CHECK_EQ_INT(fbs_snapshot_bytes_transferred(snap), n);
    CHECK_EQ_INT(fbs_snapshot_total_bytes(snap), n);
    const fbs_metadata *m = fbs_snapshot_metadata(snap);
    CHECK(m != NULL);
    CHECK_EQ_INT(fbs_metadata_size(m), n);
    CHECK_STR(fbs_metadata_full_path(m), path);
    size_t got_n = 0;
    unsigned char *got = emu_fetch_object(EMU, path, &got_n);
    CHECK(got != NULL);
    if (got && !bytes_equal(got, got_n, bytes, n)) {
        char a[33], b[33];
        md5_hex(bytes, n, a);
        md5_hex(got, got_n, b);
        check_fail(__FILE__, __LINE__, "stored bytes differ: sent %zu (md5 %s), stored %zu (md5 %s)", n, a, got_n, b);
    }
    free(got);
    fbs_snapshot_free(snap);
    fbs_task_free(t);
    fbs_reference_free(r);
    free(file);
    free(bytes);
    free(path);
}

TEST(upload_small_sizes) {
    fbs_storage *s = new_storage();
    const size_t sizes[] = {0, 1, 100 * KIB};
    for (int by_file = 0; by_file <= 1; by_file++)
        for (size_t i = 0; i < 3; i++) upload_and_verify(s, sizes[i], by_file, (unsigned)(i + 10 * by_file));
    fbs_storage_free(s);
}

TEST_EX(upload_50mib_put_data_small_chunks, TEST_NEEDS_EMULATOR, 150) {
    fbs_storage *s = new_storage();
    REQUIRE_OK(fbs_storage_set_upload_chunk_size(s, 256 * KIB));
    upload_and_verify(s, 50 * MIB, 0, 50);
    reqlog log;
    reqlog_fetch(EMU, &log);
    /* resumable: a start, then many chunk requests */
    CHECK(reqlog_count(&log, NULL, NULL, "start") == 1);
    CHECK(reqlog_count(&log, NULL, NULL, "upload") >= 20);
    reqlog_free(&log);
    fbs_storage_free(s);
}

TEST_EX(upload_50mib_put_file, TEST_NEEDS_EMULATOR, 150) {
    fbs_storage *s = new_storage();
    upload_and_verify(s, 50 * MIB, 1, 51);
    fbs_storage_free(s);
}

TEST(upload_multichunk_1mib_request_log) {
    fbs_storage *s = new_storage();
    REQUIRE_OK(fbs_storage_set_upload_chunk_size(s, 256 * KIB));
    upload_and_verify(s, MIB + 12345, 1, 7);
    reqlog log;
    reqlog_fetch(EMU, &log);
    size_t chunks = reqlog_count(&log, NULL, NULL, "upload");
    /* 1 MiB + 12345 in chunks of at most 256 KiB: at least 5 upload requests */
    if (chunks < 5) { check_fail(__FILE__, __LINE__, "only %zu chunk requests", chunks); reqlog_dump(&log); }
    CHECK_EQ_INT(reqlog_count(&log, NULL, NULL, "finalize"), 1);
    long long sent = 0;
    for (size_t i = 0; i < log.count; i++)
        if (strstr(log.items[i].command, "upload")) {
            CHECK(log.items[i].body_bytes <= 256 * KIB);
            sent += log.items[i].body_bytes;
        }
    CHECK_EQ_INT(sent, MIB + 12345);   /* nothing sent twice */
    reqlog_free(&log);
    fbs_storage_free(s);
}

TEST(upload_small_is_one_request) {
    fbs_storage *s = new_storage();
    upload_and_verify(s, 100 * KIB, 0, 3);
    reqlog log;
    reqlog_fetch(EMU, &log);
    CHECK_EQ_INT(reqlog_count(&log, "POST", "/o", NULL), 1);   /* multipart, no session */
    CHECK_EQ_INT(reqlog_count(&log, NULL, NULL, "start"), 0);
    reqlog_free(&log);
    fbs_storage_free(s);
}

/* Content type: inferred from the file extension; an explicit one wins; custom metadata is
 * sent with the upload and present in the success snapshot's metadata. */
static char *upload_file_get_type(fbs_storage *s, const char *suffix, fbs_metadata *md) {
    char *file = temp_file_with("content", 7, suffix);
    char *path = unique_path("types/f");
    fbs_reference *r = new_ref(s, path);
    fbs_task *t = NULL;
    REQUIRE_OK(fbs_reference_put_file(r, file, md, &t));
    CHECK_CODE(fbs_task_wait(t, 30000), FBS_OK);
    fbs_metadata *m = NULL;
    char *type = NULL;
    if (check_code(fbs_reference_get_metadata(r, &m), FBS_OK, "get_metadata", __FILE__, __LINE__))
        type = strdup(fbs_metadata_content_type(m) ? fbs_metadata_content_type(m) : "(null)");
    fbs_metadata_free(m);
    fbs_task_free(t);
    fbs_reference_free(r);
    free(path);
    free(file);
    return type ? type : strdup("(failed)");
}

TEST(upload_content_types) {
    fbs_storage *s = new_storage();
    static const struct { const char *suffix, *type; } cases[] = {
        {".png", "image/png"}, {".jpg", "image/jpeg"}, {".txt", "text/plain"},
        {".json", "application/json"}, {".bin", "application/octet-stream"},
        {"", "application/octet-stream"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *type = upload_file_get_type(s, cases[i].suffix, NULL);
        /* servers may add "; charset=..." to text types: compare the media type */
        if (strncmp(type, cases[i].type, strlen(cases[i].type)) != 0)
            check_fail(__FILE__, __LINE__, "file *%s: content type %s, expected %s", cases[i].suffix, type, cases[i].type);
        else check_pass();
        free(type);
    }
    fbs_metadata *md = NULL;
    REQUIRE_OK(fbs_metadata_new(&md));
    REQUIRE_OK(fbs_metadata_set_content_type(md, "application/x-custom"));
    char *type = upload_file_get_type(s, ".png", md);
    CHECK_STR(type, "application/x-custom");
    free(type);
    fbs_metadata_free(md);

    /* put_data without a content type sends application/octet-stream */
    REQUIRE_OK(upload_bytes(s, "types/data.png", "x", 1));
    fbs_reference *r = new_ref(s, "types/data.png");
    fbs_metadata *m = NULL;
    REQUIRE_OK(fbs_reference_get_metadata(r, &m));
    CHECK_STR(fbs_metadata_content_type(m), "application/octet-stream");
    fbs_metadata_free(m);
    fbs_reference_free(r);
    fbs_storage_free(s);
}

static void upload_with_custom_metadata(fbs_storage *s, size_t n) {
    fbs_metadata *md = NULL;
    REQUIRE_OK(fbs_metadata_new(&md));
    REQUIRE_OK(fbs_metadata_set_content_type(md, "text/x-test"));
    REQUIRE_OK(fbs_metadata_set_cache_control(md, "max-age=60"));
    REQUIRE_OK(fbs_metadata_set_custom(md, "k", "v\xc3\xa9"));
    REQUIRE_OK(fbs_metadata_set_custom(md, "other", "2"));
    char *path = unique_path("custom/u");
    fbs_reference *r = new_ref(s, path);
    unsigned char *bytes = random_bytes(n, 99);
    fbs_task *t = NULL;
    event_log log;
    event_log_init(&log);
    REQUIRE_OK(fbs_reference_put_data(r, bytes, n, md, &t));
    observe(t, FBS_TASK_STATUS_SUCCESS, &log);
    CHECK_CODE(fbs_task_wait(t, 60000), FBS_OK);
    REQUIRE(event_log_wait(&log, FBS_TASK_STATUS_SUCCESS, 5000));
    CHECK_STR(log.events[0].custom_value, "v\xc3\xa9");
    CHECK_STR(log.events[0].content_type, "text/x-test");
    fbs_snapshot *snap = NULL;
    REQUIRE_OK(fbs_task_snapshot(t, &snap));
    const fbs_metadata *m = fbs_snapshot_metadata(snap);
    REQUIRE(m != NULL);
    CHECK_STR(fbs_metadata_custom(m, "other"), "2");
    CHECK_STR(fbs_metadata_cache_control(m), "max-age=60");
    CHECK_EQ_INT(fbs_metadata_custom_count(m), 2);
    CHECK(fbs_metadata_md5_hash(m) != NULL);
    CHECK(fbs_metadata_generation(m) > 0);
    CHECK(fbs_metadata_time_created_ms(m) != FBS_TIME_ABSENT);
    const fbs_reference *sr = fbs_snapshot_reference(snap);
    CHECK_STR(fbs_reference_full_path(sr), path);
    fbs_snapshot_free(snap);
    fbs_task_free(t);
    fbs_reference_free(r);
    fbs_metadata_free(md);
    free(bytes);
    free(path);
}

TEST(upload_custom_metadata_multipart_and_resumable) {
    fbs_storage *s = new_storage();
    REQUIRE_OK(fbs_storage_set_upload_chunk_size(s, 256 * KIB));
    upload_with_custom_metadata(s, 10);            /* one multipart request */
    upload_with_custom_metadata(s, 600 * KIB);     /* resumable: metadata in the start request */
    fbs_storage_free(s);
}
