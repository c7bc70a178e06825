/* test_misuse.c — bad handles for every function taking a handle: NULL, released, a pointer
 * that was never a handle, and a handle of another type. Each fails with
 * FBS_ERR_INVALID_ARGUMENT and a message (getters return their documented "bad handle"
 * value), and nothing crashes. */
#define _GNU_SOURCE
#include "misuse.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

const char BAD_UTF8[] = "bad\x80utf8";
const char BAD_UTF8_OVERLONG[] = "over\xc0\xaflong";

fbs_storage *offline_storage(void) {
    fbs_storage *s = NULL;
    REQUIRE_OK(fbs_storage_new(BUCKET, &s));
    REQUIRE_OK(fbs_storage_use_emulator(s, "127.0.0.1", 9));   /* discard port: refused */
    return s;
}

typedef struct fresh_thread_call {
    void (*fn)(void *);
    void *arg;
    int empty_before, set_after;
} fresh_thread_call;

static void *run_fresh(void *p) {
    fresh_thread_call *c = p;
    c->empty_before = fbs_last_error_message()[0] == 0;
    c->fn(c->arg);
    const char *msg = fbs_last_error_message();
    c->set_after = msg && msg[0];
    return NULL;
}

void check_sets_error_on_fresh_thread(const char *what, void (*fn)(void *), void *arg) {
    fresh_thread_call c = {fn, arg, 0, 0};
    pthread_t th;
    REQUIRE(pthread_create(&th, NULL, run_fresh, &c) == 0);
    pthread_join(th, NULL);
    if (c.empty_before && c.set_after) check_pass();
    else check_fail(__FILE__, __LINE__, "%s: last error empty before: %d, set after: %d", what,
                    c.empty_before, c.set_after);
}

/* ---- the bad handles ----------------------------------------------------------------- */
static int not_a_handle_int = 42;
static double not_a_handle_double = 1.5;

typedef struct bad_handles {
    fbs_storage *storage, *released_storage;
    fbs_reference *ref, *released_ref;
    fbs_metadata *meta, *released_meta;
    fbs_task *task, *released_task;
    fbs_snapshot *snap, *released_snap;
} bad_handles;

/* Builds one live and one released handle of each type. */
static void make_handles(bad_handles *h) {
    memset(h, 0, sizeof *h);
    h->storage = offline_storage();
    h->released_storage = offline_storage();
    fbs_storage_free(h->released_storage);
    h->ref = new_ref(h->storage, "misuse/object.bin");
    h->released_ref = new_ref(h->storage, "misuse/released.bin");
    fbs_reference_free(h->released_ref);
    REQUIRE_OK(fbs_metadata_new(&h->meta));
    REQUIRE_OK(fbs_metadata_new(&h->released_meta));
    fbs_metadata_free(h->released_meta);
    REQUIRE_OK(fbs_reference_put_data(h->ref, "x", 1, NULL, &h->task));
    REQUIRE_OK(fbs_reference_put_data(h->ref, "y", 1, NULL, &h->released_task));
    REQUIRE_OK(fbs_task_snapshot(h->task, &h->snap));
    REQUIRE_OK(fbs_task_snapshot(h->task, &h->released_snap));
    fbs_task_free(h->released_task);
    fbs_snapshot_free(h->released_snap);
}

static void free_handles(bad_handles *h) {
    fbs_task_cancel(h->task);
    fbs_task_free(h->task);
    fbs_snapshot_free(h->snap);
    fbs_metadata_free(h->meta);
    fbs_reference_free(h->ref);
    fbs_storage_free(h->storage);
}

/* The bad values to try for a parameter of type T, with their names. */
#define BAD_LIST(T, released, wrong1, wrong2)                                              \
    struct { const char *what; T *p; } bad[] = {                                           \
        {"NULL", NULL},                                                                    \
        {"released", (T *)(released)},                                                     \
        {"&int", (T *)(void *)&not_a_handle_int},                                          \
        {"&double", (T *)(void *)&not_a_handle_double},                                    \
        {"0x1", (T *)(uintptr_t)1},                                                        \
        {"wrong type 1", (T *)(void *)(wrong1)},                                           \
        {"wrong type 2", (T *)(void *)(wrong2)},                                           \
    }
#define N_BAD 7

static char case_name[256];
static const char *name_case(const char *fn, const char *what) {
    snprintf(case_name, sizeof case_name, "%s(<%s>)", fn, what);
    return case_name;
}

/* ---- storage functions --------------------------------------------------------------- */
static const char *provider(int force, void *u) { (void)force; (void)u; return "t"; }
static void never_completion(int st, void *u) { (void)st; (*(int *)u)++; }

typedef int (*storage_call)(fbs_storage *s);
#define STORAGE_CALL(name, expr) static int name(fbs_storage *s) { return expr; }
static fbs_reference *scratch_ref;
static double scratch_d;
static int64_t scratch_i64;
STORAGE_CALL(st_use_emulator, fbs_storage_use_emulator(s, "127.0.0.1", 9199))
STORAGE_CALL(st_set_auth_token, fbs_storage_set_auth_token(s, "token"))
STORAGE_CALL(st_set_provider, fbs_storage_set_auth_token_provider(s, provider, NULL))
STORAGE_CALL(st_set_app_check, fbs_storage_set_app_check_token(s, "token"))
STORAGE_CALL(st_set_upload_retry, fbs_storage_set_max_upload_retry_time(s, 5))
STORAGE_CALL(st_get_upload_retry, fbs_storage_get_max_upload_retry_time(s, &scratch_d))
STORAGE_CALL(st_set_download_retry, fbs_storage_set_max_download_retry_time(s, 5))
STORAGE_CALL(st_get_download_retry, fbs_storage_get_max_download_retry_time(s, &scratch_d))
STORAGE_CALL(st_set_op_retry, fbs_storage_set_max_operation_retry_time(s, 5))
STORAGE_CALL(st_get_op_retry, fbs_storage_get_max_operation_retry_time(s, &scratch_d))
STORAGE_CALL(st_set_chunk, fbs_storage_set_upload_chunk_size(s, 262144))
STORAGE_CALL(st_get_chunk, fbs_storage_get_upload_chunk_size(s, &scratch_i64))
STORAGE_CALL(st_set_connect, fbs_storage_set_connect_timeout(s, 5))
STORAGE_CALL(st_get_connect, fbs_storage_get_connect_timeout(s, &scratch_d))
STORAGE_CALL(st_set_md5, fbs_storage_set_verify_md5(s, 1))
STORAGE_CALL(st_set_ca, fbs_storage_set_ca_file(s, NULL))
STORAGE_CALL(st_use_endpoint, fbs_storage_use_endpoint(s, "https://localhost:8443"))
STORAGE_CALL(st_set_proxy, fbs_storage_set_proxy(s, NULL, NULL, NULL, NULL))
STORAGE_CALL(st_set_up_speed, fbs_storage_set_max_upload_speed(s, 1000))
STORAGE_CALL(st_get_up_speed, fbs_storage_get_max_upload_speed(s, &scratch_i64))
STORAGE_CALL(st_set_down_speed, fbs_storage_set_max_download_speed(s, 1000))
STORAGE_CALL(st_get_down_speed, fbs_storage_get_max_download_speed(s, &scratch_i64))
STORAGE_CALL(st_reference, fbs_storage_reference(s, "a/b", &scratch_ref))
STORAGE_CALL(st_reference_for_url, fbs_storage_reference_for_url(s, "gs://fbs-test.appspot.com/a", &scratch_ref))

static const struct { const char *name; storage_call fn; } storage_calls[] = {
    {"fbs_storage_use_emulator", st_use_emulator},
    {"fbs_storage_set_auth_token", st_set_auth_token},
    {"fbs_storage_set_auth_token_provider", st_set_provider},
    {"fbs_storage_set_app_check_token", st_set_app_check},
    {"fbs_storage_set_max_upload_retry_time", st_set_upload_retry},
    {"fbs_storage_get_max_upload_retry_time", st_get_upload_retry},
    {"fbs_storage_set_max_download_retry_time", st_set_download_retry},
    {"fbs_storage_get_max_download_retry_time", st_get_download_retry},
    {"fbs_storage_set_max_operation_retry_time", st_set_op_retry},
    {"fbs_storage_get_max_operation_retry_time", st_get_op_retry},
    {"fbs_storage_set_upload_chunk_size", st_set_chunk},
    {"fbs_storage_get_upload_chunk_size", st_get_chunk},
    {"fbs_storage_set_connect_timeout", st_set_connect},
    {"fbs_storage_get_connect_timeout", st_get_connect},
    {"fbs_storage_set_verify_md5", st_set_md5},
    {"fbs_storage_set_ca_file", st_set_ca},
    {"fbs_storage_use_endpoint", st_use_endpoint},
    {"fbs_storage_set_proxy", st_set_proxy},
    {"fbs_storage_set_max_upload_speed", st_set_up_speed},
    {"fbs_storage_get_max_upload_speed", st_get_up_speed},
    {"fbs_storage_set_max_download_speed", st_set_down_speed},
    {"fbs_storage_get_max_download_speed", st_get_down_speed},
    {"fbs_storage_reference", st_reference},
    {"fbs_storage_reference_for_url", st_reference_for_url},
};

TEST_OFFLINE(misuse_bad_storage_handles) {
    bad_handles h;
    make_handles(&h);
    BAD_LIST(fbs_storage, h.released_storage, h.ref, h.meta);
    for (size_t f = 0; f < sizeof storage_calls / sizeof storage_calls[0]; f++) {
        /* A valid storage first: the call itself works (so the matrix can fail). */
        CASE_NAMED(name_case(storage_calls[f].name, "valid"), storage_calls[f].fn(h.storage), FBS_OK);
        if (scratch_ref) { fbs_reference_free(scratch_ref); scratch_ref = NULL; }
        for (int b = 0; b < N_BAD; b++) {
            scratch_ref = (fbs_reference *)&not_a_handle_int;
            CASE_NAMED(name_case(storage_calls[f].name, bad[b].what), storage_calls[f].fn(bad[b].p),
                       FBS_ERR_INVALID_ARGUMENT);
            CHECK(scratch_ref == (fbs_reference *)&not_a_handle_int);   /* out untouched */
            scratch_ref = NULL;
        }
        for (int b = 0; b < N_BAD; b++) CHECK(fbs_storage_bucket(bad[b].p) == NULL);
    }
    for (int b = 0; b < N_BAD; b++) {
        CASE_NAMED(name_case("fbs_storage_close", bad[b].what), fbs_storage_close(bad[b].p, FBS_CLOSE_CANCEL, 0),
                   FBS_ERR_INVALID_ARGUMENT);
    }
    free_handles(&h);
}

/* ---- reference functions ------------------------------------------------------------- */
typedef int (*ref_call)(const fbs_reference *r, int *callbacks);
#define REF_CALL(name, expr) static int name(const fbs_reference *r, int *cb) { (void)cb; return expr; }
static void meta_cb(int st, const fbs_metadata *m, void *u) { (void)m; never_completion(st, u); }
static void list_cb(int st, const fbs_list_result *l, void *u) { (void)l; never_completion(st, u); }
static void str_cb(int st, const char *v, void *u) { (void)v; never_completion(st, u); }
static void data_cb(int st, const void *b, size_t n, void *u) { (void)b; (void)n; never_completion(st, u); }
static fbs_reference *out_ref;
static fbs_metadata *out_meta;
static fbs_task *out_task;
static fbs_list_result *out_list;
static char *out_str;
static void *out_bytes;
static size_t out_len;
static char *local_file;
REF_CALL(rf_child, fbs_reference_child(r, "c", &out_ref))
REF_CALL(rf_parent, fbs_reference_parent(r, &out_ref))
REF_CALL(rf_root, fbs_reference_root(r, &out_ref))
REF_CALL(rf_put_data, fbs_reference_put_data(r, "abc", 3, NULL, &out_task))
REF_CALL(rf_put_file, fbs_reference_put_file(r, local_file, NULL, &out_task))
REF_CALL(rf_put_file_resuming, fbs_reference_put_file_resuming(r, local_file, "{}", NULL, &out_task))
REF_CALL(rf_write_to_file, fbs_reference_write_to_file(r, "/tmp/fbs-misuse-never-written", &out_task))
REF_CALL(rf_get_metadata, fbs_reference_get_metadata(r, &out_meta))
REF_CALL(rf_get_metadata_async, fbs_reference_get_metadata_async(r, meta_cb, cb))
REF_CALL(rf_update_metadata, fbs_reference_update_metadata(r, out_meta, &out_meta))
REF_CALL(rf_update_metadata_async, fbs_reference_update_metadata_async(r, out_meta, meta_cb, cb))
REF_CALL(rf_delete, fbs_reference_delete(r))
REF_CALL(rf_delete_async, fbs_reference_delete_async(r, never_completion, cb))
REF_CALL(rf_download_url, fbs_reference_download_url(r, &out_str))
REF_CALL(rf_download_url_async, fbs_reference_download_url_async(r, str_cb, cb))
REF_CALL(rf_get_data, fbs_reference_get_data(r, 10, &out_bytes, &out_len))
REF_CALL(rf_get_data_async, fbs_reference_get_data_async(r, 10, data_cb, cb))
static void *never_allocate(size_t n, void *u) { (void)n; (void)u; return NULL; }
static void never_release(void *m, void *u) { (void)m; (void)u; }
static const fbs_allocator never_allocator = {never_allocate, never_release, NULL};
REF_CALL(rf_get_data_into, fbs_reference_get_data_into(r, 10, &never_allocator, &out_bytes, &out_len))
REF_CALL(rf_get_data_into_async, fbs_reference_get_data_into_async(r, 10, &never_allocator, data_cb, cb))
static unsigned char range_buffer[4];
static int devnull = -1;
static int refuse_sink(const void *b, size_t n, void *u) { (void)b; (void)n; (void)u; return FBS_ERR_CANCELLED; }
static int64_t empty_source(void *b, size_t n, void *u) { (void)b; (void)n; (void)u; return 0; }
REF_CALL(rf_get_range, fbs_reference_get_range(r, 0, 10, 10, &out_bytes, &out_len))
REF_CALL(rf_get_range_async, fbs_reference_get_range_async(r, 0, 10, 10, data_cb, cb))
REF_CALL(rf_read_range, fbs_reference_read_range(r, 0, 4, range_buffer, sizeof range_buffer, &out_task))
REF_CALL(rf_stream, fbs_reference_stream(r, 0, -1, refuse_sink, NULL, &out_task))
REF_CALL(rf_write_to_fd, fbs_reference_write_to_fd(r, devnull, &out_task))
REF_CALL(rf_put_stream, fbs_reference_put_stream(r, empty_source, NULL, NULL, &out_task))
REF_CALL(rf_put_fd, fbs_reference_put_fd(r, devnull, NULL, &out_task))
REF_CALL(rf_list, fbs_reference_list(r, 10, NULL, &out_list))
REF_CALL(rf_list_async, fbs_reference_list_async(r, 10, NULL, list_cb, cb))
REF_CALL(rf_list_all, fbs_reference_list_all(r, &out_list))
REF_CALL(rf_list_all_async, fbs_reference_list_all_async(r, list_cb, cb))

static const struct { const char *name; ref_call fn; int valid_offline; } ref_calls[] = {
    {"fbs_reference_child", rf_child, 1},
    {"fbs_reference_parent", rf_parent, 1},
    {"fbs_reference_root", rf_root, 1},
    {"fbs_reference_put_data", rf_put_data, 1},
    {"fbs_reference_put_file", rf_put_file, 1},
    {"fbs_reference_put_file_resuming", rf_put_file_resuming, 0},
    {"fbs_reference_write_to_file", rf_write_to_file, 1},
    {"fbs_reference_get_metadata", rf_get_metadata, 0},
    {"fbs_reference_get_metadata_async", rf_get_metadata_async, 0},
    {"fbs_reference_update_metadata", rf_update_metadata, 0},
    {"fbs_reference_update_metadata_async", rf_update_metadata_async, 0},
    {"fbs_reference_delete", rf_delete, 0},
    {"fbs_reference_delete_async", rf_delete_async, 0},
    {"fbs_reference_download_url", rf_download_url, 0},
    {"fbs_reference_download_url_async", rf_download_url_async, 0},
    {"fbs_reference_get_data", rf_get_data, 0},
    {"fbs_reference_get_data_async", rf_get_data_async, 0},
    {"fbs_reference_get_data_into", rf_get_data_into, 0},
    {"fbs_reference_get_data_into_async", rf_get_data_into_async, 0},
    {"fbs_reference_get_range", rf_get_range, 0},
    {"fbs_reference_get_range_async", rf_get_range_async, 0},
    {"fbs_reference_read_range", rf_read_range, 1},
    {"fbs_reference_stream", rf_stream, 1},
    {"fbs_reference_write_to_fd", rf_write_to_fd, 1},
    {"fbs_reference_put_stream", rf_put_stream, 1},
    {"fbs_reference_put_fd", rf_put_fd, 1},
    {"fbs_reference_list", rf_list, 0},
    {"fbs_reference_list_async", rf_list_async, 0},
    {"fbs_reference_list_all", rf_list_all, 0},
    {"fbs_reference_list_all_async", rf_list_all_async, 0},
};

TEST_OFFLINE(misuse_bad_reference_handles) {
    bad_handles h;
    make_handles(&h);
    local_file = temp_file_with("hello", 5, ".txt");
    devnull = open("/dev/null", O_RDWR);
    REQUIRE(devnull >= 0);
    out_meta = h.meta;   /* the changes for update_metadata */
    int callbacks = 0;
    BAD_LIST(fbs_reference, h.released_ref, h.storage, h.meta);
    for (size_t f = 0; f < sizeof ref_calls / sizeof ref_calls[0]; f++) {
        if (ref_calls[f].valid_offline) {   /* works with a valid reference */
            out_ref = NULL;
            out_task = NULL;
            CASE_NAMED(name_case(ref_calls[f].name, "valid"), ref_calls[f].fn(h.ref, &callbacks), FBS_OK);
            if (out_task) { fbs_task_cancel(out_task); fbs_task_free(out_task); }
            fbs_reference_free(out_ref);
        }
        for (int b = 0; b < N_BAD; b++) {
            out_task = (fbs_task *)&not_a_handle_int;
            out_ref = (fbs_reference *)&not_a_handle_int;
            CASE_NAMED(name_case(ref_calls[f].name, bad[b].what), ref_calls[f].fn(bad[b].p, &callbacks),
                       FBS_ERR_INVALID_ARGUMENT);
            CHECK(out_task == (fbs_task *)&not_a_handle_int);
            CHECK(out_ref == (fbs_reference *)&not_a_handle_int);
        }
    }
    for (int b = 0; b < N_BAD; b++) {
        CHECK(fbs_reference_name(bad[b].p) == NULL);
        CHECK(fbs_reference_full_path(bad[b].p) == NULL);
        CHECK(fbs_reference_bucket(bad[b].p) == NULL);
    }
    sleep_ms(200);
    CHECK_EQ_INT(callbacks, 0);   /* a refused _async call never calls back */
    free(local_file);
    free_handles(&h);
}

/* ---- metadata functions -------------------------------------------------------------- */
TEST_OFFLINE(misuse_bad_metadata_handles) {
    bad_handles h;
    make_handles(&h);
    BAD_LIST(fbs_metadata, h.released_meta, h.ref, h.task);
    for (int b = 0; b < N_BAD; b++) {
        fbs_metadata *m = bad[b].p;
        const char *w = bad[b].what;
        CASE_NAMED(name_case("fbs_metadata_set_cache_control", w), fbs_metadata_set_cache_control(m, "v"), FBS_ERR_INVALID_ARGUMENT);
        CASE_NAMED(name_case("fbs_metadata_set_content_disposition", w), fbs_metadata_set_content_disposition(m, "v"), FBS_ERR_INVALID_ARGUMENT);
        CASE_NAMED(name_case("fbs_metadata_set_content_encoding", w), fbs_metadata_set_content_encoding(m, "v"), FBS_ERR_INVALID_ARGUMENT);
        CASE_NAMED(name_case("fbs_metadata_set_content_language", w), fbs_metadata_set_content_language(m, "v"), FBS_ERR_INVALID_ARGUMENT);
        CASE_NAMED(name_case("fbs_metadata_set_content_type", w), fbs_metadata_set_content_type(m, "v"), FBS_ERR_INVALID_ARGUMENT);
        CASE_NAMED(name_case("fbs_metadata_set_custom", w), fbs_metadata_set_custom(m, "k", "v"), FBS_ERR_INVALID_ARGUMENT);
        CASE_NAMED(name_case("fbs_metadata_remove_custom", w), fbs_metadata_remove_custom(m, "k"), FBS_ERR_INVALID_ARGUMENT);
        CASE_NAMED(name_case("fbs_metadata_clear_custom", w), fbs_metadata_clear_custom(m), FBS_ERR_INVALID_ARGUMENT);
        /* as the metadata argument of uploads and updates */
        fbs_task *t = (fbs_task *)&not_a_handle_int;
        if (m) {   /* NULL metadata is allowed for uploads */
            CASE_NAMED(name_case("fbs_reference_put_data(metadata)", w), fbs_reference_put_data(h.ref, "a", 1, m, &t), FBS_ERR_INVALID_ARGUMENT);
            CHECK(t == (fbs_task *)&not_a_handle_int);
        }
        fbs_metadata *updated = NULL;
        CASE_NAMED(name_case("fbs_reference_update_metadata(changes)", w), fbs_reference_update_metadata(h.ref, m, &updated), FBS_ERR_INVALID_ARGUMENT);
        CHECK(updated == NULL);
        /* getters: NULL / -1 / FBS_TIME_ABSENT / 0 */
        CHECK(fbs_metadata_cache_control(m) == NULL);
        CHECK(fbs_metadata_content_disposition(m) == NULL);
        CHECK(fbs_metadata_content_encoding(m) == NULL);
        CHECK(fbs_metadata_content_language(m) == NULL);
        CHECK(fbs_metadata_content_type(m) == NULL);
        CHECK(fbs_metadata_bucket(m) == NULL);
        CHECK(fbs_metadata_full_path(m) == NULL);
        CHECK(fbs_metadata_name(m) == NULL);
        CHECK(fbs_metadata_md5_hash(m) == NULL);
        CHECK(fbs_metadata_crc32c(m) == NULL);
        CHECK_EQ_INT(fbs_metadata_size(m), -1);
        CHECK_EQ_INT(fbs_metadata_generation(m), -1);
        CHECK_EQ_INT(fbs_metadata_metageneration(m), -1);
        CHECK(fbs_metadata_time_created_ms(m) == FBS_TIME_ABSENT);
        CHECK(fbs_metadata_updated_ms(m) == FBS_TIME_ABSENT);
        CHECK(fbs_metadata_custom(m, "k") == NULL);
        CHECK_EQ_INT(fbs_metadata_custom_count(m), 0);
        CHECK(fbs_metadata_custom_key_at(m, 0) == NULL);
    }
    CASE(fbs_metadata_new(NULL), FBS_ERR_INVALID_ARGUMENT);
    free_handles(&h);
}

/* ---- task, snapshot and list-result functions ---------------------------------------- */
static void noop_observer(const fbs_snapshot *s, void *u) { (void)s; (void)u; }

TEST_OFFLINE(misuse_bad_task_handles) {
    bad_handles h;
    make_handles(&h);
    BAD_LIST(fbs_task, h.released_task, h.ref, h.snap);
    for (int b = 0; b < N_BAD; b++) {
        fbs_task *t = bad[b].p;
        const char *w = bad[b].what;
        fbs_observer_handle oh = 77;
        fbs_snapshot *snap = (fbs_snapshot *)&not_a_handle_int;
        char *session = (char *)&not_a_handle_int;
        CASE_NAMED(name_case("fbs_task_observe", w), fbs_task_observe(t, FBS_TASK_STATUS_PROGRESS, noop_observer, NULL, &oh), FBS_ERR_INVALID_ARGUMENT);
        CHECK_EQ_INT(oh, 77);
        CASE_NAMED(name_case("fbs_task_remove_observer", w), fbs_task_remove_observer(t, 1), FBS_ERR_INVALID_ARGUMENT);
        CASE_NAMED(name_case("fbs_task_remove_all_observers_for_status", w), fbs_task_remove_all_observers_for_status(t, FBS_TASK_STATUS_PROGRESS), FBS_ERR_INVALID_ARGUMENT);
        CASE_NAMED(name_case("fbs_task_remove_all_observers", w), fbs_task_remove_all_observers(t), FBS_ERR_INVALID_ARGUMENT);
        CASE_NAMED(name_case("fbs_task_pause", w), fbs_task_pause(t), FBS_ERR_INVALID_ARGUMENT);
        CASE_NAMED(name_case("fbs_task_resume", w), fbs_task_resume(t), FBS_ERR_INVALID_ARGUMENT);
        CASE_NAMED(name_case("fbs_task_cancel", w), fbs_task_cancel(t), FBS_ERR_INVALID_ARGUMENT);
        int64_t speed = 77;
        CASE_NAMED(name_case("fbs_task_set_max_speed", w), fbs_task_set_max_speed(t, 1000), FBS_ERR_INVALID_ARGUMENT);
        CASE_NAMED(name_case("fbs_task_get_max_speed", w), fbs_task_get_max_speed(t, &speed), FBS_ERR_INVALID_ARGUMENT);
        CHECK_EQ_INT(speed, 77);
        CASE_NAMED(name_case("fbs_task_wait", w), fbs_task_wait(t, 0), FBS_ERR_INVALID_ARGUMENT);
        CASE_NAMED(name_case("fbs_task_snapshot", w), fbs_task_snapshot(t, &snap), FBS_ERR_INVALID_ARGUMENT);
        CHECK(snap == (fbs_snapshot *)&not_a_handle_int);
        CASE_NAMED(name_case("fbs_task_upload_session", w), fbs_task_upload_session(t, &session), FBS_ERR_INVALID_ARGUMENT);
        CHECK(session == (char *)&not_a_handle_int);
    }
    {
        BAD_LIST(fbs_snapshot, h.released_snap, h.task, h.ref);
        for (int b = 0; b < N_BAD; b++) {
            fbs_snapshot *s = bad[b].p;
            CHECK_EQ_INT(fbs_snapshot_status(s), FBS_TASK_STATUS_UNKNOWN);
            CHECK_EQ_INT(fbs_snapshot_bytes_transferred(s), -1);
            CHECK_EQ_INT(fbs_snapshot_total_bytes(s), -1);
            CHECK(fbs_snapshot_metadata(s) == NULL);
            CHECK(fbs_snapshot_error_message(s) == NULL);
            CHECK(fbs_snapshot_error_server_response(s) == NULL);
            CHECK(fbs_snapshot_reference(s) == NULL);
        }
    }
    {
        BAD_LIST(fbs_list_result, NULL, h.task, h.ref);
        for (int b = 0; b < N_BAD; b++) {
            fbs_list_result *l = bad[b].p;
            CHECK_EQ_INT(fbs_list_result_item_count(l), 0);
            CHECK_EQ_INT(fbs_list_result_prefix_count(l), 0);
            CHECK(fbs_list_result_item(l, 0) == NULL);
            CHECK(fbs_list_result_prefix(l, 0) == NULL);
            CHECK(fbs_list_result_page_token(l) == NULL);
            CHECK(fbs_list_result_item_paths(l) == NULL);
            CHECK(fbs_list_result_prefix_paths(l) == NULL);
        }
    }
    free_handles(&h);
}

/* ---- *_free on bad handles: no crash, and the last error is set -------------------- */
static void free_storage(void *p) { fbs_storage_free(p); }
static void free_ref(void *p) { fbs_reference_free(p); }
static void free_meta(void *p) { fbs_metadata_free(p); }
static void free_task(void *p) { fbs_task_free(p); }
static void free_snap(void *p) { fbs_snapshot_free(p); }
static void free_list(void *p) { fbs_list_result_free(p); }

TEST_OFFLINE(misuse_free_bad_handles) {
    bad_handles h;
    make_handles(&h);
    static const struct { const char *name; void (*fn)(void *); } frees[] = {
        {"fbs_storage_free", free_storage}, {"fbs_reference_free", free_ref},
        {"fbs_metadata_free", free_meta},   {"fbs_task_free", free_task},
        {"fbs_snapshot_free", free_snap},   {"fbs_list_result_free", free_list},
    };
    void *released[] = {h.released_storage, h.released_ref, h.released_meta, h.released_task,
                        h.released_snap, NULL};
    /* wrong type for each: a live handle of another kind */
    void *wrong[] = {h.ref, h.meta, h.task, h.snap, h.storage, h.ref};
    char name[128];
    for (int f = 0; f < 6; f++) {
        if (released[f]) {   /* double free */
            snprintf(name, sizeof name, "%s(released)", frees[f].name);
            check_sets_error_on_fresh_thread(name, frees[f].fn, released[f]);
        }
        snprintf(name, sizeof name, "%s(&int)", frees[f].name);
        check_sets_error_on_fresh_thread(name, frees[f].fn, &not_a_handle_int);
        snprintf(name, sizeof name, "%s(0x1)", frees[f].name);
        check_sets_error_on_fresh_thread(name, frees[f].fn, (void *)(uintptr_t)1);
        snprintf(name, sizeof name, "%s(wrong type)", frees[f].name);
        check_sets_error_on_fresh_thread(name, frees[f].fn, wrong[f]);
        frees[f].fn(NULL);   /* a no-op */
    }
    fbs_string_free(NULL);
    fbs_data_free(NULL);
    /* the live handles survived the wrong-type frees */
    CHECK_STR(fbs_reference_full_path(h.ref), "misuse/object.bin");
    CHECK_STR(fbs_storage_bucket(h.storage), BUCKET);
    CASE(fbs_metadata_set_content_type(h.meta, "text/plain"), FBS_OK);
    CHECK(fbs_snapshot_bytes_transferred(h.snap) >= 0);
    free_handles(&h);
}
