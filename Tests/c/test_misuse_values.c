/* test_misuse_values.c — bad values (NULL out-parameters, ranges, UTF-8, paths, files) and
 * calls after fbs_storage_free. */
#define _GNU_SOURCE
#include "misuse.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *provider(int force, void *u) { (void)force; (void)u; return NULL; }

TEST_OFFLINE(misuse_storage_new) {
    fbs_storage *s = (fbs_storage *)&s;
    CASE(fbs_storage_new(NULL, &s), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_storage_new(BUCKET, NULL), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_storage_new("", &s), FBS_ERR_PATH);
    CASE(fbs_storage_new("gs://", &s), FBS_ERR_PATH);
    CASE(fbs_storage_new("gs://b/some/path", &s), FBS_ERR_PATH);
    CASE(fbs_storage_new("b/path", &s), FBS_ERR_PATH);
    CASE(fbs_storage_new("bu\ncket", &s), FBS_ERR_PATH);
    /* invalid UTF-8 in the bucket: a malformed bucket (FBS_ERR_PATH) per fbs_storage_new */
    CASE(fbs_storage_new(BAD_UTF8, &s), FBS_ERR_PATH);
    CHECK(s == (fbs_storage *)&s);   /* out untouched on failure */
    CASE(fbs_storage_new("gs://fbs-test.appspot.com", &s), FBS_OK);
    CHECK_STR(fbs_storage_bucket(s), BUCKET);
    fbs_storage_free(s);
}

TEST_OFFLINE(misuse_storage_settings) {
    fbs_storage *s = offline_storage();
    CASE(fbs_storage_use_emulator(s, NULL, 9199), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_storage_use_emulator(s, "", 9199), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_storage_use_emulator(s, "127.0.0.1", 0), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_storage_use_emulator(s, "127.0.0.1", -1), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_storage_use_emulator(s, "127.0.0.1", 65536), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_storage_use_emulator(s, BAD_UTF8, 9199), FBS_ERR_INVALID_ARGUMENT);
    /* a host that would not stay the URL's host */
    CASE(fbs_storage_use_emulator(s, "a b", 9199), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_storage_use_emulator(s, "host/path", 9199), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_storage_use_emulator(s, "127.0.0.1@evil.example", 9199), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_storage_use_emulator(s, "h?q", 9199), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_storage_use_emulator(s, "h#f", 9199), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_storage_use_emulator(s, "h\r\nX: y", 9199), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_storage_use_emulator(s, "[]", 9199), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_storage_use_emulator(s, "::1", 65535), FBS_OK);
    CASE(fbs_storage_use_emulator(s, "[::1]", 1), FBS_OK);
    CASE(fbs_storage_set_auth_token(s, BAD_UTF8), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_storage_set_auth_token(s, NULL), FBS_OK);
    CASE(fbs_storage_set_app_check_token(s, BAD_UTF8_OVERLONG), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_storage_set_app_check_token(s, NULL), FBS_OK);
    CASE(fbs_storage_set_auth_token_provider(s, NULL, NULL), FBS_OK);
    CASE(fbs_storage_set_auth_token_provider(s, provider, NULL), FBS_OK);

    int (*setters[3])(fbs_storage *, double) = {fbs_storage_set_max_upload_retry_time,
                                                fbs_storage_set_max_download_retry_time,
                                                fbs_storage_set_max_operation_retry_time};
    int (*getters[3])(const fbs_storage *, double *) = {fbs_storage_get_max_upload_retry_time,
                                                        fbs_storage_get_max_download_retry_time,
                                                        fbs_storage_get_max_operation_retry_time};
    const double defaults[3] = {600, 600, 120};
    for (int i = 0; i < 3; i++) {
        double d = -5;
        CASE_NAMED("get retry time (default)", getters[i](s, &d), FBS_OK);
        CHECK(d == defaults[i]);
        CASE_NAMED("set retry time 0", setters[i](s, 0), FBS_ERR_INVALID_ARGUMENT);
        CASE_NAMED("set retry time -1", setters[i](s, -1), FBS_ERR_INVALID_ARGUMENT);
        CASE_NAMED("set retry time NaN", setters[i](s, NAN), FBS_ERR_INVALID_ARGUMENT);
        CASE_NAMED("set retry time inf", setters[i](s, INFINITY), FBS_ERR_INVALID_ARGUMENT);
        CASE_NAMED("get retry time NULL out", getters[i](s, NULL), FBS_ERR_INVALID_ARGUMENT);
        CASE_NAMED("set retry time 2.5", setters[i](s, 2.5), FBS_OK);
        CASE_NAMED("get retry time", getters[i](s, &d), FBS_OK);
        CHECK(d == 2.5);
    }
    int64_t chunk = 0;
    CASE(fbs_storage_get_upload_chunk_size(s, &chunk), FBS_OK);
    CHECK_EQ_INT(chunk, 128 * 1024 * 1024);
    CASE(fbs_storage_set_upload_chunk_size(s, 262143), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_storage_set_upload_chunk_size(s, 0), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_storage_set_upload_chunk_size(s, -262144), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_storage_set_upload_chunk_size(s, (int64_t)1 << 30 | 1), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_storage_set_upload_chunk_size(s, INT64_MAX), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_storage_get_upload_chunk_size(s, NULL), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_storage_set_upload_chunk_size(s, 262144), FBS_OK);
    CASE(fbs_storage_get_upload_chunk_size(s, &chunk), FBS_OK);
    CHECK_EQ_INT(chunk, 262144);
    CASE(fbs_storage_set_upload_chunk_size(s, (int64_t)1 << 30), FBS_OK);

    double t = 0;
    CASE(fbs_storage_get_connect_timeout(s, &t), FBS_OK);
    CHECK(t == 30);
    CASE(fbs_storage_set_connect_timeout(s, 0), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_storage_set_connect_timeout(s, -3), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_storage_set_connect_timeout(s, NAN), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_storage_get_connect_timeout(s, NULL), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_storage_set_verify_md5(s, 2), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_storage_set_verify_md5(s, -1), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_storage_set_verify_md5(s, 0), FBS_OK);
    CASE(fbs_storage_set_ca_file(s, BAD_UTF8), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_storage_set_ca_file(s, NULL), FBS_OK);

    static const char *const bad_endpoints[] = {
        "", "localhost:443", "ftp://host", "https://", "https://host/path", "https://user@host",
        "https://host?q", "https://host#f", "https://host:0", "https://host:65536", "https://host:x",
        "https://ho st", " https://host", "https://[::1", BAD_UTF8,
    };
    for (size_t i = 0; i < sizeof bad_endpoints / sizeof bad_endpoints[0]; i++) {
        CASE(fbs_storage_use_endpoint(s, bad_endpoints[i]), FBS_ERR_INVALID_ARGUMENT);
    }
    CASE(fbs_storage_use_endpoint(s, NULL), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_storage_use_endpoint(s, "https://host"), FBS_OK);
    CASE(fbs_storage_use_endpoint(s, "HTTP://[::1]:9199/"), FBS_OK);

    CASE(fbs_storage_set_proxy(s, NULL, "user", NULL, NULL), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_storage_set_proxy(s, NULL, NULL, NULL, "*"), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_storage_set_proxy(s, BAD_UTF8, NULL, NULL, NULL), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_storage_set_proxy(s, "http://proxy:3128", "u", BAD_UTF8, NULL), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_storage_set_proxy(s, "http://proxy:3128", "u", "p", "localhost"), FBS_OK);
    CASE(fbs_storage_set_proxy(s, "", NULL, NULL, NULL), FBS_OK);
    CASE(fbs_storage_set_proxy(s, NULL, NULL, NULL, NULL), FBS_OK);

    int64_t speed = -1;
    CASE(fbs_storage_get_max_upload_speed(s, &speed), FBS_OK);
    CHECK_EQ_INT(speed, 0);
    CASE(fbs_storage_set_max_upload_speed(s, -1), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_storage_set_max_download_speed(s, -5), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_storage_set_max_download_speed(s, 4096), FBS_OK);
    CASE(fbs_storage_get_max_download_speed(s, &speed), FBS_OK);
    CHECK_EQ_INT(speed, 4096);
    CASE(fbs_storage_get_max_download_speed(s, NULL), FBS_ERR_INVALID_ARGUMENT);

    CASE(fbs_storage_close(s, (fbs_close_mode)3, 0), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_storage_close(s, FBS_CLOSE_FINISH, -1), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_storage_close(s, FBS_CLOSE_FINISH, NAN), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_storage_close(s, FBS_CLOSE_KEEP_SESSIONS, 0), FBS_OK);
    CASE(fbs_storage_close(s, FBS_CLOSE_CANCEL, 0), FBS_OK);   /* a second close does nothing */
    CASE(fbs_storage_set_max_upload_speed(s, 1), FBS_OK);      /* settings stay readable and writable */
    fbs_reference *closed_ref = NULL;
    REQUIRE_OK(fbs_storage_reference(s, "after-close", &closed_ref));
    fbs_task *closed_task = (fbs_task *)&closed_task;
    CASE(fbs_reference_put_data(closed_ref, "x", 1, NULL, &closed_task), FBS_ERR_INVALID_ARGUMENT);
    fbs_reference_free(closed_ref);
    fbs_storage_free(s);
}

TEST_OFFLINE(misuse_paths_and_urls) {
    fbs_storage *s = offline_storage();
    fbs_reference *r = (fbs_reference *)&r, *ok = NULL;
    char path[1100];
    memset(path, 'a', 1025);
    path[1025] = 0;
    CASE(fbs_storage_reference(s, path, &r), FBS_ERR_PATH);           /* 1025 bytes */
    path[1024] = 0;
    CASE(fbs_storage_reference(s, path, &ok), FBS_OK);                /* 1024 bytes */
    fbs_reference_free(ok);
    memcpy(path, "/a//", 4);                                          /* normalised: 1021 */
    CASE(fbs_storage_reference(s, path, &ok), FBS_OK);
    fbs_reference_free(ok);
    CASE(fbs_storage_reference(s, "a\rb", &r), FBS_ERR_PATH);
    CASE(fbs_storage_reference(s, "a\nb", &r), FBS_ERR_PATH);
    CASE(fbs_storage_reference(s, BAD_UTF8, &r), FBS_ERR_PATH);
    CASE(fbs_storage_reference(s, BAD_UTF8_OVERLONG, &r), FBS_ERR_PATH);
    CASE(fbs_storage_reference(s, "a/b", NULL), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_storage_reference_for_url(s, NULL, &r), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_storage_reference_for_url(s, "gs://fbs-test.appspot.com/a", NULL), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_storage_reference_for_url(s, "not a url", &r), FBS_ERR_PATH);
    CASE(fbs_storage_reference_for_url(s, "", &r), FBS_ERR_PATH);
    CASE(fbs_storage_reference_for_url(s, "ftp://fbs-test.appspot.com/a", &r), FBS_ERR_PATH);
    CASE(fbs_storage_reference_for_url(s, "gs://fbs-test.appspot.com/a\nb", &r), FBS_ERR_PATH);
    CASE(fbs_storage_reference_for_url(s, "gs://fbs-test.appspot.com/\x80", &r), FBS_ERR_PATH);
    CASE(fbs_storage_reference_for_url(s, "gs://other-bucket/a", &r), FBS_ERR_BUCKET_MISMATCH);
    CASE(fbs_storage_reference_for_url(s, "https://firebasestorage.googleapis.com/v0/b/other/o/a%2Fb", &r), FBS_ERR_BUCKET_MISMATCH);
    CASE(fbs_storage_reference_for_url(s, "http://127.0.0.1:9199/v0/b/other/o/x", &r), FBS_ERR_BUCKET_MISMATCH);
    CHECK(r == (fbs_reference *)&r);
    CASE(fbs_storage_reference_for_url(s, "https://firebasestorage.googleapis.com/v0/b/fbs-test.appspot.com/o/a%2Fb", &ok), FBS_OK);
    CHECK_STR(fbs_reference_full_path(ok), "a/b");

    fbs_reference *child = (fbs_reference *)&child;
    memset(path, 'c', 1030);
    path[1030] = 0;
    CASE(fbs_reference_child(ok, path, &child), FBS_ERR_PATH);
    CASE(fbs_reference_child(ok, "x\ny", &child), FBS_ERR_PATH);
    CASE(fbs_reference_child(ok, BAD_UTF8, &child), FBS_ERR_PATH);
    CASE(fbs_reference_child(ok, NULL, &child), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_reference_child(ok, "c", NULL), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_reference_parent(ok, NULL), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_reference_root(ok, NULL), FBS_ERR_INVALID_ARGUMENT);
    CHECK(child == (fbs_reference *)&child);
    fbs_reference_free(ok);
    fbs_storage_free(s);
}

TEST_OFFLINE(misuse_upload_arguments) {
    fbs_storage *s = offline_storage();
    fbs_reference *root = new_ref(s, NULL), *root2 = new_ref(s, "//"), *r = new_ref(s, "up/x.bin");
    fbs_task *t = (fbs_task *)&t;
    char *file = temp_file_with("data", 4, ".txt");
    CASE(fbs_reference_put_data(root, "a", 1, NULL, &t), FBS_ERR_PATH);
    CASE(fbs_reference_put_data(root2, "a", 1, NULL, &t), FBS_ERR_PATH);
    CASE(fbs_reference_put_file(root, file, NULL, &t), FBS_ERR_PATH);
    CASE(fbs_reference_put_data(r, NULL, 5, NULL, &t), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_reference_put_data(r, "a", SIZE_MAX, NULL, &t), FBS_ERR_INVALID_ARGUMENT);        /* huge */
    CASE(fbs_reference_put_data(r, "a", (size_t)INT64_MAX + 1, NULL, &t), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_reference_put_data(r, "a", 1, NULL, NULL), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_reference_put_file(r, NULL, NULL, &t), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_reference_put_file(r, file, NULL, NULL), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_reference_put_file(r, "/nonexistent/dir/file.bin", NULL, &t), FBS_ERR_UNKNOWN);
    CHECK(strstr(fbs_last_error_message(), "/nonexistent/dir/file.bin") != NULL);   /* names it */
    CASE(fbs_reference_put_file(r, "/tmp", NULL, &t), FBS_ERR_UNKNOWN);            /* a directory */
    CASE(fbs_reference_put_file(r, "/dev/null", NULL, &t), FBS_ERR_UNKNOWN);       /* not regular */
    char *locked = temp_file_with("secret", 6, ".bin");
    chmod(locked, 0);
    if (geteuid() == 0)
        test_skip("put_file of a chmod-000 file: running as root, which can still read it");
    else
        CASE(fbs_reference_put_file(r, locked, NULL, &t), FBS_ERR_UNKNOWN);
    CASE(fbs_reference_put_file_resuming(r, file, NULL, NULL, &t), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_reference_put_file_resuming(r, file, "not a session", NULL, &t), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_reference_put_file_resuming(r, file, "", NULL, &t), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_reference_put_file_resuming(r, NULL, "x", NULL, &t), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_reference_put_file_resuming(r, file, "x", NULL, NULL), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_reference_write_to_file(r, NULL, &t), FBS_ERR_INVALID_ARGUMENT);
    /* local paths are not object paths: bad UTF-8 in them is an invalid argument */
    CASE(fbs_reference_put_file(r, BAD_UTF8, NULL, &t), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_reference_write_to_file(r, BAD_UTF8_OVERLONG, &t), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_reference_put_file_resuming(r, file, BAD_UTF8, NULL, &t), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_reference_write_to_file(r, "/tmp/x", NULL), FBS_ERR_INVALID_ARGUMENT);
    CHECK(t == (fbs_task *)&t);
    free(file);
    free(locked);
    fbs_reference_free(root);
    fbs_reference_free(root2);
    fbs_reference_free(r);
    fbs_storage_free(s);
}

static void cb_metadata(int st, const fbs_metadata *m, void *u) { (void)st; (void)m; (*(int *)u)++; }
static void cb_list(int st, const fbs_list_result *l, void *u) { (void)st; (void)l; (*(int *)u)++; }
static void cb_data(int st, const void *b, size_t n, void *u) { (void)st; (void)b; (void)n; (*(int *)u)++; }

TEST_OFFLINE(misuse_operation_arguments) {
    fbs_storage *s = offline_storage();
    fbs_reference *r = new_ref(s, "op/x.bin");
    fbs_metadata *m = NULL;
    fbs_list_result *l = (fbs_list_result *)&l;
    void *bytes = &bytes;
    size_t len = 99;
    int calls = 0;
    REQUIRE_OK(fbs_metadata_new(&m));
    CASE(fbs_reference_get_metadata(r, NULL), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_reference_get_metadata_async(r, NULL, NULL), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_reference_update_metadata(r, NULL, &m), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_reference_update_metadata(r, m, NULL), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_reference_update_metadata_async(r, NULL, cb_metadata, &calls), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_reference_update_metadata_async(r, m, NULL, NULL), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_reference_delete_async(r, NULL, NULL), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_reference_download_url(r, NULL), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_reference_download_url_async(r, NULL, NULL), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_reference_get_data(r, -1, &bytes, &len), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_reference_get_data(r, INT64_MIN, &bytes, &len), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_reference_get_data(r, 10, NULL, &len), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_reference_get_data(r, 10, &bytes, NULL), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_reference_get_data_async(r, -1, cb_data, &calls), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_reference_get_data_async(r, 10, NULL, NULL), FBS_ERR_INVALID_ARGUMENT);
    CHECK(bytes == &bytes && len == 99);
    CASE(fbs_reference_list(r, -1, NULL, &l), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_reference_list(r, 1001, NULL, &l), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_reference_list(r, INT64_MAX, NULL, &l), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_reference_list(r, 10, BAD_UTF8, &l), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_reference_list(r, 10, NULL, NULL), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_reference_list_async(r, 1001, NULL, cb_list, &calls), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_reference_list_async(r, 0, NULL, NULL, NULL), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_reference_list_all(r, NULL), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_reference_list_all_async(r, NULL, NULL), FBS_ERR_INVALID_ARGUMENT);
    CHECK(l == (fbs_list_result *)&l);
    sleep_ms(100);
    CHECK_EQ_INT(calls, 0);
    fbs_metadata_free(m);
    fbs_reference_free(r);
    fbs_storage_free(s);
}

TEST_OFFLINE(misuse_metadata_values) {
    fbs_metadata *m = NULL;
    REQUIRE_OK(fbs_metadata_new(&m));
    CASE(fbs_metadata_set_content_type(m, BAD_UTF8), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_metadata_set_cache_control(m, BAD_UTF8_OVERLONG), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_metadata_set_custom(m, NULL, "v"), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_metadata_set_custom(m, BAD_UTF8, "v"), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_metadata_set_custom(m, "k", BAD_UTF8), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_metadata_remove_custom(m, NULL), FBS_ERR_INVALID_ARGUMENT);
    CHECK(fbs_metadata_content_type(m) == NULL);   /* failed sets changed nothing */
    CHECK_EQ_INT(fbs_metadata_custom_count(m), 0);
    CHECK(fbs_metadata_custom(m, NULL) == NULL);
    CASE(fbs_metadata_set_custom(m, "b", "2"), FBS_OK);
    CASE(fbs_metadata_set_custom(m, "a", NULL), FBS_OK);
    CHECK_EQ_INT(fbs_metadata_custom_count(m), 2);      /* includes a key marked for deletion */
    CHECK_STR(fbs_metadata_custom_key_at(m, 0), "a");   /* byte order */
    CHECK_STR(fbs_metadata_custom_key_at(m, 1), "b");
    CHECK(fbs_metadata_custom_key_at(m, 2) == NULL);
    CHECK(fbs_metadata_custom_key_at(m, SIZE_MAX) == NULL);
    CHECK(fbs_metadata_custom(m, "a") == NULL);
    CHECK_STR(fbs_metadata_custom(m, "b"), "2");
    CASE(fbs_metadata_remove_custom(m, "b"), FBS_OK);
    CHECK_EQ_INT(fbs_metadata_custom_count(m), 1);
    CASE(fbs_metadata_set_content_type(m, "text/plain"), FBS_OK);
    CHECK_STR(fbs_metadata_content_type(m), "text/plain");
    CASE(fbs_metadata_set_content_type(m, NULL), FBS_OK);
    CHECK(fbs_metadata_content_type(m) == NULL);          /* marked for deletion */
    CHECK_EQ_INT(fbs_metadata_size(m), -1);               /* read-only fields absent */
    CHECK(fbs_metadata_time_created_ms(m) == FBS_TIME_ABSENT);
    fbs_metadata_free(m);
}

static void on_any(const fbs_snapshot *s, void *u) { (void)s; (void)u; }

TEST_OFFLINE(misuse_task_arguments) {
    fbs_storage *s = offline_storage();
    fbs_reference *r = new_ref(s, "task/x.bin");
    fbs_task *t = NULL;
    REQUIRE_OK(fbs_reference_put_data(r, "abc", 3, NULL, &t));
    fbs_observer_handle h = 5;
    CASE(fbs_task_observe(t, FBS_TASK_STATUS_UNKNOWN, on_any, NULL, &h), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_task_observe(t, (fbs_task_status)6, on_any, NULL, &h), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_task_observe(t, (fbs_task_status)-1, on_any, NULL, &h), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_task_observe(t, FBS_TASK_STATUS_PROGRESS, NULL, NULL, &h), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_task_observe(t, FBS_TASK_STATUS_PROGRESS, on_any, NULL, NULL), FBS_OK);   /* out is optional */
    CHECK_EQ_INT(h, 5);
    CASE(fbs_task_remove_all_observers_for_status(t, FBS_TASK_STATUS_UNKNOWN), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_task_remove_all_observers_for_status(t, (fbs_task_status)9), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_task_snapshot(t, NULL), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_task_upload_session(t, NULL), FBS_ERR_INVALID_ARGUMENT);
    int64_t task_speed = -1;
    CASE(fbs_task_get_max_speed(t, &task_speed), FBS_OK);
    CHECK_EQ_INT(task_speed, 0);
    CASE(fbs_task_set_max_speed(t, -1), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_task_set_max_speed(t, 2048), FBS_OK);
    CASE(fbs_task_get_max_speed(t, &task_speed), FBS_OK);
    CHECK_EQ_INT(task_speed, 2048);
    CASE(fbs_task_get_max_speed(t, NULL), FBS_ERR_INVALID_ARGUMENT);
    /* wait with a timeout on a task that cannot finish: times out */
    double start = now_s();
    CASE(fbs_task_wait(t, 200), FBS_ERR_TIMEOUT);
    CHECK(now_s() - start >= 0.15 && now_s() - start < 5);
    CASE(fbs_task_cancel(t), FBS_OK);
    CASE(fbs_task_wait(t, 5000), FBS_ERR_CANCELLED);
    CASE(fbs_task_observe(t, FBS_TASK_STATUS_FAILURE, on_any, NULL, &h), FBS_OK);   /* fires once with the final snapshot */
    CASE(fbs_task_pause(t), FBS_OK);    /* finished: OK, nothing happens */
    CASE(fbs_task_resume(t), FBS_OK);
    CASE(fbs_task_cancel(t), FBS_OK);
    fbs_task_free(t);
    fbs_reference_free(r);
    fbs_storage_free(s);
}

static int closed_calls;
static void closed_cb(int st, void *u) { (void)st; (void)u; closed_calls++; }

TEST_OFFLINE(misuse_after_storage_free) {
    fbs_storage *s = offline_storage();
    fbs_reference *r = new_ref(s, "closed/x.bin");
    fbs_metadata *m = NULL, *out = NULL;
    REQUIRE_OK(fbs_metadata_new(&m));
    fbs_storage_free(s);
    fbs_task *t = NULL;
    fbs_list_result *l = NULL;
    char *url = NULL;
    void *bytes = NULL;
    size_t n = 0;
    char *file = temp_file_with("abc", 3, ".txt");
    CASE(fbs_reference_put_data(r, "abc", 3, NULL, &t), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_reference_put_file(r, file, NULL, &t), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_reference_write_to_file(r, "/tmp/fbs-closed-never", &t), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_reference_get_metadata(r, &out), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_reference_update_metadata(r, m, &out), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_reference_delete(r), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_reference_delete_async(r, closed_cb, NULL), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_reference_download_url(r, &url), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_reference_get_data(r, 10, &bytes, &n), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_reference_list(r, 10, NULL, &l), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_reference_list_all(r, &l), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_storage_set_auth_token(s, "x"), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_storage_use_emulator(s, "127.0.0.1", 9199), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_storage_set_upload_chunk_size(s, 262144), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_storage_reference(s, "x", &r), FBS_ERR_INVALID_ARGUMENT);
    CHECK(fbs_storage_bucket(s) == NULL);
    CHECK(t == NULL && out == NULL && l == NULL && url == NULL && bytes == NULL);
    sleep_ms(100);
    CHECK_EQ_INT(closed_calls, 0);
    CHECK_STR(fbs_reference_full_path(r), "closed/x.bin");   /* still a valid handle */
    fbs_reference_free(r);
    fbs_metadata_free(m);
    free(file);
}

/* A task started before fbs_storage_free: it ended cancelled, its handle still answers, and no
 * callback runs any more (the callback thread is gone). */
static int late_calls;
static void late_observer(const fbs_snapshot *s, void *u) { (void)s; (void)u; late_calls++; }
static void late_metadata(int st, const fbs_metadata *m, void *u) { (void)st; (void)m; (void)u; late_calls++; }
static void late_list(int st, const fbs_list_result *l, void *u) { (void)st; (void)l; (void)u; late_calls++; }
static void late_string(int st, const char *v, void *u) { (void)st; (void)v; (void)u; late_calls++; }
static void late_data(int st, const void *b, size_t n, void *u) { (void)st; (void)b; (void)n; (void)u; late_calls++; }

TEST_OFFLINE(misuse_task_after_storage_free) {
    fbs_storage *s = offline_storage();
    fbs_reference *r = new_ref(s, "closed/task.bin");
    fbs_metadata *m = NULL;
    fbs_task *t = NULL, *other = NULL;
    REQUIRE_OK(fbs_metadata_new(&m));
    REQUIRE_OK(fbs_reference_put_data(r, "abc", 3, NULL, &t));
    fbs_storage_free(s);
    fbs_observer_handle h = 0;
    CASE(fbs_task_observe(t, FBS_TASK_STATUS_FAILURE, late_observer, NULL, &h), FBS_OK);
    CASE(fbs_task_observe(t, FBS_TASK_STATUS_PROGRESS, late_observer, NULL, NULL), FBS_OK);
    CASE(fbs_task_pause(t), FBS_OK);     /* finished: nothing happens */
    CASE(fbs_task_resume(t), FBS_OK);
    CASE(fbs_task_cancel(t), FBS_OK);
    CASE(fbs_task_wait(t, 1000), FBS_ERR_CANCELLED);
    CASE(fbs_task_wait(t, -1), FBS_ERR_CANCELLED);
    fbs_snapshot *snap = NULL;
    CASE(fbs_task_snapshot(t, &snap), FBS_OK);
    CHECK_EQ_INT(fbs_snapshot_status(snap), FBS_TASK_STATUS_FAILURE);
    CHECK_EQ_INT(fbs_snapshot_error_code(snap), FBS_ERR_CANCELLED);
    char *session = (char *)&session;
    CASE(fbs_task_upload_session(t, &session), FBS_OK);
    CHECK(session == NULL);
    CASE(fbs_task_remove_observer(t, h), FBS_OK);
    CASE(fbs_task_remove_all_observers_for_status(t, FBS_TASK_STATUS_FAILURE), FBS_OK);
    CASE(fbs_task_remove_all_observers(t), FBS_OK);
    char *file = temp_file_with("abc", 3, ".txt");
    const char *session_text = "{\"bucket\":\"fbs-test.appspot.com\",\"object\":\"closed/task.bin\","
                               "\"sessionURL\":\"http://127.0.0.1:9/u\",\"totalBytes\":3,\"v\":2,"
                               "\"verifiedBytes\":0,\"verifiedCRC32C\":0}";
    CASE(fbs_reference_put_file_resuming(r, file, session_text, NULL, &other), FBS_ERR_INVALID_ARGUMENT);
    CHECK(strstr(fbs_last_error_message(), "closed") != NULL);
    CASE(fbs_reference_get_metadata_async(r, late_metadata, NULL), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_reference_update_metadata_async(r, m, late_metadata, NULL), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_reference_download_url_async(r, late_string, NULL), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_reference_get_data_async(r, 10, late_data, NULL), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_reference_list_async(r, 10, NULL, late_list, NULL), FBS_ERR_INVALID_ARGUMENT);
    CASE(fbs_reference_list_all_async(r, late_list, NULL), FBS_ERR_INVALID_ARGUMENT);
    CHECK(other == NULL);
    sleep_ms(100);
    CHECK_EQ_INT(late_calls, 0);
    fbs_snapshot_free(snap);
    fbs_task_free(t);
    fbs_reference_free(r);
    fbs_metadata_free(m);
    free(file);
}

TEST_OFFLINE(misuse_error_names) {
    static const struct { int code; const char *name; } names[] = {
        {FBS_OK, "FBS_OK"},
        {FBS_ERR_UNKNOWN, "FBS_ERR_UNKNOWN"},
        {FBS_ERR_OBJECT_NOT_FOUND, "FBS_ERR_OBJECT_NOT_FOUND"},
        {FBS_ERR_BUCKET_NOT_FOUND, "FBS_ERR_BUCKET_NOT_FOUND"},
        {FBS_ERR_PROJECT_NOT_FOUND, "FBS_ERR_PROJECT_NOT_FOUND"},
        {FBS_ERR_QUOTA_EXCEEDED, "FBS_ERR_QUOTA_EXCEEDED"},
        {FBS_ERR_UNAUTHENTICATED, "FBS_ERR_UNAUTHENTICATED"},
        {FBS_ERR_UNAUTHORIZED, "FBS_ERR_UNAUTHORIZED"},
        {FBS_ERR_RETRY_LIMIT_EXCEEDED, "FBS_ERR_RETRY_LIMIT_EXCEEDED"},
        {FBS_ERR_NON_MATCHING_CHECKSUM, "FBS_ERR_NON_MATCHING_CHECKSUM"},
        {FBS_ERR_DOWNLOAD_SIZE_EXCEEDED, "FBS_ERR_DOWNLOAD_SIZE_EXCEEDED"},
        {FBS_ERR_CANCELLED, "FBS_ERR_CANCELLED"},
        {FBS_ERR_INVALID_ARGUMENT, "FBS_ERR_INVALID_ARGUMENT"},
        {FBS_ERR_BUCKET_MISMATCH, "FBS_ERR_BUCKET_MISMATCH"},
        {FBS_ERR_INTERNAL, "FBS_ERR_INTERNAL"},
        {FBS_ERR_PATH, "FBS_ERR_PATH"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        CHECK_STR(fbs_error_name(names[i].code), names[i].name);
    CHECK_STR(fbs_error_name(FBS_ERR_TLS), "FBS_ERR_TLS");
    CHECK_STR(fbs_error_name(1), "FBS_ERR_?");
    CASE(fbs_library_system_ca_bundle(NULL), FBS_ERR_INVALID_ARGUMENT);
    CHECK_STR(fbs_error_name(-13001), "FBS_ERR_?");
    CHECK_STR(fbs_error_name(INT32_MIN), "FBS_ERR_?");
    CHECK(fbs_last_error_message() != NULL);
}

TEST_OFFLINE(misuse_versions) {
    CHECK_STR(fbs_version(), FBS_VERSION_STRING);
    CHECK_EQ_INT(fbs_abi_version(), FBS_ABI_VERSION);
    char expected[32];
    snprintf(expected, sizeof expected, "%d.%d.%d", FBS_VERSION_MAJOR, FBS_VERSION_MINOR, FBS_VERSION_PATCH);
    CHECK_STR(FBS_VERSION_STRING, expected);
}

static void ignore_line(int level, const char *line, void *user_data) { (void)level; (void)line; (void)user_data; }

TEST_OFFLINE(misuse_log_handler) {
    int unused = 0;
    CHECK_CODE(fbs_library_set_log_handler(NULL, &unused), FBS_OK);   /* user_data without a handler */
    CHECK_CODE(fbs_library_set_log_handler(NULL, NULL), FBS_OK);      /* disabling twice */
    CHECK_CODE(fbs_library_set_log_handler(ignore_line, NULL), FBS_OK);
    CHECK_CODE(fbs_library_set_log_handler(ignore_line, &unused), FBS_OK);   /* replacing */
    CHECK_CODE(fbs_library_set_log_handler(NULL, NULL), FBS_OK);
}

static const char *newline_token(int force, void *u) { (void)force; (void)u; return "token\r\nX-Evil: 1"; }
static const char *latin1_token(int force, void *u) { (void)force; (void)u; return "caf\xe9-token"; }

/* Control characters can never travel in a header: refused at once as INVALID_ARGUMENT, never
 * retried as a network failure (the port below refuses, so a retry would wait seconds). */
TEST_OFFLINE(misuse_control_characters_in_header_values) {
    fbs_storage *s = offline_storage();
    static const char *const bad[] = {"a\rb", "a\nb", "tab\there", "bell\a", "del\x7f", "esc\x1b[0m"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        CASE(fbs_storage_set_auth_token(s, bad[i]), FBS_ERR_INVALID_ARGUMENT);
        CASE(fbs_storage_set_app_check_token(s, bad[i]), FBS_ERR_INVALID_ARGUMENT);
        CHECK(strstr(fbs_last_error_message(), "control character") != NULL);
    }
    int (*setters[5])(fbs_metadata *, const char *) = {
        fbs_metadata_set_content_type, fbs_metadata_set_cache_control, fbs_metadata_set_content_disposition,
        fbs_metadata_set_content_encoding, fbs_metadata_set_content_language};
    fbs_reference *r = NULL;
    REQUIRE_OK(fbs_storage_reference(s, "control/chars.txt", &r));
    for (size_t f = 0; f < 5; f++) {
        for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
            fbs_metadata *m = NULL;
            fbs_task *t = NULL;
            REQUIRE_OK(fbs_metadata_new(&m));
            REQUIRE_OK(setters[f](m, bad[i]));
            double start = now_s();
            CASE(fbs_reference_put_data(r, "x", 1, m, &t), FBS_ERR_INVALID_ARGUMENT);
            CHECK(t == NULL);
            static char resumable[300 * 1024];   /* over the multipart threshold */
            CASE(fbs_reference_put_data(r, resumable, sizeof resumable, m, &t), FBS_ERR_INVALID_ARGUMENT);
            fbs_metadata *updated = NULL;
            CASE(fbs_reference_update_metadata(r, m, &updated), FBS_ERR_INVALID_ARGUMENT);
            CHECK(strstr(fbs_last_error_message(), "control character") != NULL);
            CHECK(now_s() - start < 1);
            fbs_metadata_free(m);
        }
    }
    /* a token provider's token: the upload fails with INVALID_ARGUMENT, not after retries */
    REQUIRE_OK(fbs_storage_set_auth_token_provider(s, newline_token, NULL));
    fbs_task *t = NULL;
    double start = now_s();
    REQUIRE_OK(fbs_reference_put_data(r, "x", 1, NULL, &t));
    CASE(fbs_task_wait(t, 30000), FBS_ERR_INVALID_ARGUMENT);
    CHECK(strstr(fbs_last_error_message(), "auth token contains a control character") != NULL);
    CHECK(strstr(fbs_last_error_message(), "Evil") == NULL);   /* never the token itself */
    fbs_metadata *got = NULL;
    CASE(fbs_reference_get_metadata(r, &got), FBS_ERR_INVALID_ARGUMENT);
    CHECK(now_s() - start < 1);
    fbs_task_free(t);
    /* a token that is not UTF-8: the same, not "no token" */
    REQUIRE_OK(fbs_storage_set_auth_token_provider(s, latin1_token, NULL));
    start = now_s();
    CASE(fbs_reference_get_metadata(r, &got), FBS_ERR_INVALID_ARGUMENT);
    CHECK(strstr(fbs_last_error_message(), "not valid UTF-8") != NULL);
    CHECK(now_s() - start < 1);
    fbs_reference_free(r);
    fbs_storage_free(s);
}
