/* test_download.c — delete, download URLs, get_data, write_to_file. */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "events.h"
#include "reqlog.h"

#define KIB 1024

TEST(delete_then_not_found) {
    fbs_storage *s = new_storage();
    REQUIRE_OK(upload_bytes(s, "del/x.bin", "abc", 3));
    fbs_reference *r = new_ref(s, "del/x.bin");
    fbs_metadata *m = NULL;
    CHECK_CODE(fbs_reference_get_metadata(r, &m), FBS_OK);
    fbs_metadata_free(m);
    m = NULL;
    CHECK_CODE(fbs_reference_delete(r), FBS_OK);
    CHECK_CODE(fbs_reference_get_metadata(r, &m), FBS_ERR_OBJECT_NOT_FOUND);
    CHECK(m == NULL);
    CHECK_CODE(fbs_reference_delete(r), FBS_ERR_OBJECT_NOT_FOUND);
    size_t n = 0;
    CHECK(emu_fetch_object(EMU, "del/x.bin", &n) == NULL);
    fbs_reference_free(r);
    fbs_storage_free(s);
}

TEST(download_url_plain_get) {
    fbs_storage *s = new_storage();
    unsigned char *bytes = random_bytes(5000, 41);
    const char *path = "dl/some file+name é.bin";
    REQUIRE_OK(upload_bytes(s, path, bytes, 5000));
    fbs_reference *r = new_ref(s, path);
    char *url = NULL;
    REQUIRE_OK(fbs_reference_download_url(r, &url));
    CHECK(strncmp(url, EMU->base_url, strlen(EMU->base_url)) == 0);
    CHECK(strstr(url, "alt=media") != NULL && strstr(url, "token=") != NULL);
    http_response resp;
    CHECK_EQ_INT(http_request("GET", url, NULL, NULL, 0, &resp), 200);   /* no credentials */
    CHECK(bytes_equal(resp.body, resp.length, bytes, 5000));
    http_response_free(&resp);
    fbs_string_free(url);
    fbs_reference *missing = new_ref(s, "dl/missing");
    url = (char *)&url;
    CHECK_CODE(fbs_reference_download_url(missing, &url), FBS_ERR_OBJECT_NOT_FOUND);
    CHECK(url == (char *)&url);
    fbs_reference_free(missing);
    fbs_reference_free(r);
    free(bytes);
    fbs_storage_free(s);
}

TEST(get_data_sizes) {
    fbs_storage *s = new_storage();
    unsigned char *bytes = random_bytes(100 * KIB, 42);
    REQUIRE_OK(upload_bytes(s, "dl/data.bin", bytes, 100 * KIB));
    REQUIRE_OK(upload_bytes(s, "dl/empty.bin", NULL, 0));
    fbs_reference *r = new_ref(s, "dl/data.bin"), *e = new_ref(s, "dl/empty.bin");
    void *got = NULL;
    size_t n = 0;
    CHECK_CODE(fbs_reference_get_data(r, 100 * KIB, &got, &n), FBS_OK);   /* exactly the size */
    CHECK(bytes_equal(got, n, bytes, 100 * KIB));
    fbs_data_free(got);
    got = &got;
    n = 77;
    CHECK_CODE(fbs_reference_get_data(r, 100 * KIB - 1, &got, &n), FBS_ERR_DOWNLOAD_SIZE_EXCEEDED);
    CHECK(got == &got && n == 77);
    CHECK_CODE(fbs_reference_get_data(r, 0, &got, &n), FBS_ERR_DOWNLOAD_SIZE_EXCEEDED);
    got = NULL;
    CHECK_CODE(fbs_reference_get_data(e, 0, &got, &n), FBS_OK);
    CHECK(got != NULL);   /* non-NULL even for an empty object */
    CHECK_EQ_INT(n, 0);
    fbs_data_free(got);
    fbs_reference *missing = new_ref(s, "dl/none");
    CHECK_CODE(fbs_reference_get_data(missing, 10, &got, &n), FBS_ERR_OBJECT_NOT_FOUND);
    fbs_reference_free(missing);
    fbs_reference_free(r);
    fbs_reference_free(e);
    free(bytes);
    fbs_storage_free(s);
}

/* An fbs_allocator that counts its calls; `refuse` makes allocate answer NULL. */
typedef struct counting_allocator {
    int allocations, releases, refuse;
    size_t last_length;
    void *last;
} counting_allocator;
static void *counted_allocate(size_t length, void *user_data) {
    counting_allocator *a = user_data;
    if (a->refuse) return NULL;
    a->allocations++;
    a->last_length = length;
    return a->last = malloc(length ? length : 1);
}
static void counted_release(void *memory, void *user_data) {
    ((counting_allocator *)user_data)->releases++;
    free(memory);
}

TEST(get_data_into_the_callers_memory) {
    fbs_storage *s = new_storage();
    unsigned char *bytes = random_bytes(300 * KIB, 43);
    REQUIRE_OK(upload_bytes(s, "dl/into.bin", bytes, 300 * KIB));
    REQUIRE_OK(upload_bytes(s, "dl/into-empty.bin", NULL, 0));
    fbs_reference *r = new_ref(s, "dl/into.bin"), *e = new_ref(s, "dl/into-empty.bin"),
                  *missing = new_ref(s, "dl/into-none");
    counting_allocator a = {0};
    fbs_allocator allocator = {counted_allocate, counted_release, &a};
    void *got = NULL;
    size_t n = 0;

    /* One allocation of the announced length, handed over as is. */
    CHECK_CODE(fbs_reference_get_data_into(r, 300 * KIB, &allocator, &got, &n), FBS_OK);
    CHECK(got == a.last && a.allocations == 1 && a.releases == 0 && a.last_length == 300 * KIB);
    CHECK(bytes_equal(got, n, bytes, 300 * KIB));
    free(got);

    /* A retried answer costs no allocation (test_cut_responses.c: a retry with another length). */
    a = (counting_allocator){0};
    emu_clear(EMU, "requests");
    emu_fault_status(EMU, (fault_match){"GET", NULL, object_prefix("dl/into.bin"), NULL, 1}, 503, 0);
    CHECK_CODE(fbs_reference_get_data_into(r, INT64_MAX, &allocator, &got, &n), FBS_OK);
    CHECK(got == a.last && a.allocations == 1 && a.releases == 0);
    CHECK(bytes_equal(got, n, bytes, 300 * KIB));
    free(got);
    emu_wait_idle(EMU, 10000);   /* the emulator logs a download once it has sent it all */
    reqlog log;
    reqlog_fetch(EMU, &log);
    CHECK_EQ_INT(reqlog_count(&log, "GET", "into.bin", NULL), 2);   /* the 503, then the answer */
    reqlog_free(&log);

    a = (counting_allocator){0};
    CHECK_CODE(fbs_reference_get_data_into(e, 0, &allocator, &got, &n), FBS_OK);
    CHECK(n == 0 && a.allocations == 1 && a.last_length == 0 && got == a.last);
    free(got);

    /* Failures: nothing handed over, every allocation released. */
    a = (counting_allocator){0};
    CHECK_CODE(fbs_reference_get_data_into(r, 300 * KIB - 1, &allocator, &got, &n), FBS_ERR_DOWNLOAD_SIZE_EXCEEDED);
    CHECK(got == NULL && a.allocations == a.releases);
    CHECK_CODE(fbs_reference_get_data_into(missing, 10, &allocator, &got, &n), FBS_ERR_OBJECT_NOT_FOUND);
    CHECK(got == NULL && a.allocations == a.releases);
    a.refuse = 1;
    CHECK_CODE(fbs_reference_get_data_into(r, INT64_MAX, &allocator, &got, &n), FBS_ERR_INTERNAL);
    CHECK(got == NULL && strstr(fbs_last_error_message(), "memory") != NULL);

    /* Bad allocators are refused at the call. */
    fbs_allocator no_release = {counted_allocate, NULL, &a};
    CHECK_CODE(fbs_reference_get_data_into(r, 10, NULL, &got, &n), FBS_ERR_INVALID_ARGUMENT);
    CHECK_CODE(fbs_reference_get_data_into(r, 10, &no_release, &got, &n), FBS_ERR_INVALID_ARGUMENT);
    CHECK_CODE(fbs_reference_get_data_into(r, 10, &allocator, NULL, &n), FBS_ERR_INVALID_ARGUMENT);
    fbs_reference_free(missing);
    fbs_reference_free(r);
    fbs_reference_free(e);
    free(bytes);
    fbs_storage_free(s);
}

/* Names of the files in dir (except . and ..), joined by spaces; caller frees. */
static char *dir_listing(const char *dir) {
    DIR *d = opendir(dir);
    char *out = strdup("");
    struct dirent *de;
    while (d && (de = readdir(d))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
        char *next = NULL;
        if (asprintf(&next, "%s%s ", out, de->d_name) < 0) abort();
        free(out);
        out = next;
    }
    if (d) closedir(d);
    return out;
}

static char *fresh_dir(void) {
    char *d = temp_path("-dir");
    REQUIRE(mkdir(d, 0755) == 0);
    return d;
}

TEST(write_to_file_with_pause_resume) {
    fbs_storage *s = new_storage();
    size_t n = 3 * 1024 * KIB;
    unsigned char *bytes = random_bytes(n, 43);
    REQUIRE_OK(upload_bytes(s, "dl/file.bin", bytes, n));
    emu_fault_delay(EMU, (fault_match){"GET", NULL, NULL, "alt=media", 1}, 300);
    char *dir = fresh_dir(), *dest = NULL;
    if (asprintf(&dest, "%s/out.bin", dir) < 0) abort();
    fbs_reference *r = new_ref(s, "dl/file.bin");
    fbs_task *t = NULL;
    event_log log;
    event_log_init(&log);
    REQUIRE_OK(fbs_reference_write_to_file(r, dest, &t));
    observe_all(t, &log);
    CHECK_CODE(fbs_task_pause(t), FBS_OK);
    REQUIRE(event_log_wait(&log, FBS_TASK_STATUS_PAUSE, 3000));
    CHECK(access(dest, F_OK) != 0);   /* nothing at the destination while unfinished */
    sleep_ms(200);
    CHECK_CODE(fbs_task_resume(t), FBS_OK);
    CHECK_CODE(fbs_task_wait(t, 60000), FBS_OK);
    check_event_order(&log, FBS_TASK_STATUS_SUCCESS);
    size_t got_n = 0;
    unsigned char *got = read_file(dest, &got_n);
    CHECK(got && bytes_equal(got, got_n, bytes, n));
    char *listing = dir_listing(dir);
    CHECK_STR(listing, "out.bin ");   /* no temporary file left */
    fbs_snapshot *snap = NULL;
    REQUIRE_OK(fbs_task_snapshot(t, &snap));
    CHECK_EQ_INT(fbs_snapshot_bytes_transferred(snap), n);
    CHECK_EQ_INT(fbs_snapshot_total_bytes(snap), n);
    fbs_snapshot_free(snap);
    free(listing);
    free(got);
    fbs_task_free(t);
    fbs_reference_free(r);
    free(dest);
    free(dir);
    free(bytes);
    fbs_storage_free(s);
}

TEST(write_to_file_failure_leaves_nothing) {
    fbs_storage *s = new_storage();
    size_t n = 40 * 1024 * KIB;
    unsigned char *bytes = random_bytes(n, 44);
    REQUIRE_OK(upload_bytes(s, "dl/fail.bin", bytes, n));
    REQUIRE_OK(fbs_storage_set_max_download_retry_time(s, 1.5));
    char *dir = fresh_dir(), *dest = NULL;
    if (asprintf(&dest, "%s/out.bin", dir) < 0) abort();
    fbs_reference *r = new_ref(s, "dl/fail.bin");
    fbs_task *t = NULL;
    /* pause while the download's request is on the wire (the emulator holds its answer, so the
     * pause cannot lose a race with a fast download), make every further request fail, resume */
    emu_fault_delay(EMU, (fault_match){"GET", NULL, NULL, "alt=media", 1}, 1000);
    event_log log;
    event_log_init(&log);
    REQUIRE_OK(fbs_reference_write_to_file(r, dest, &log.task));
    t = log.task;
    observe_all(t, &log);
    REQUIRE(event_log_wait(&log, FBS_TASK_STATUS_RESUME, 10000));
    REQUIRE_OK(fbs_task_pause(t));
    REQUIRE(event_log_wait(&log, FBS_TASK_STATUS_PAUSE, 10000));
    CHECK_EQ_INT(event_log_count(&log, FBS_TASK_STATUS_SUCCESS), 0);
    CHECK(access(dest, F_OK) != 0);
    emu_clear(EMU, "faults");   /* the pause may have stopped the request before it was sent */
    emu_fault_status(EMU, (fault_match){"GET", NULL, NULL, "alt=media", FOREVER}, 503, 0);
    REQUIRE_OK(fbs_task_resume(t));
    CHECK_CODE(fbs_task_wait(t, 30000), FBS_ERR_RETRY_LIMIT_EXCEEDED);
    CHECK_EQ_INT(event_log_count(&log, FBS_TASK_STATUS_FAILURE), 1);
    char *listing = dir_listing(dir);
    CHECK_STR(listing, "");   /* neither the destination nor a temporary file */
    free(listing);
    fbs_task_free(t);
    emu_reset(EMU);

    /* a missing object: FAILURE with OBJECT_NOT_FOUND; an existing file stays untouched */
    fbs_reference *missing = new_ref(s, "dl/none");
    FILE *f = fopen(dest, "w");
    fputs("keep me", f);
    fclose(f);
    REQUIRE_OK(fbs_reference_write_to_file(missing, dest, &t));
    CHECK_CODE(fbs_task_wait(t, 30000), FBS_ERR_OBJECT_NOT_FOUND);
    size_t kept_n = 0;
    unsigned char *kept = read_file(dest, &kept_n);
    CHECK(kept && bytes_equal(kept, kept_n, "keep me", 7));
    listing = dir_listing(dir);
    CHECK_STR(listing, "out.bin ");
    free(listing);
    free(kept);
    fbs_task_free(t);

    /* cancelled while its request is on the wire: nothing left either */
    REQUIRE_OK(upload_bytes(s, "dl/fail.bin", bytes, n));
    unlink(dest);
    emu_fault_delay(EMU, (fault_match){"GET", NULL, NULL, "alt=media", 1}, 1000);
    event_log_init(&log);
    REQUIRE_OK(fbs_reference_write_to_file(r, dest, &log.task));
    t = log.task;
    observe_all(t, &log);
    REQUIRE(event_log_wait(&log, FBS_TASK_STATUS_RESUME, 10000));
    CHECK_CODE(fbs_task_cancel(t), FBS_OK);
    CHECK_CODE(fbs_task_wait(t, 10000), FBS_ERR_CANCELLED);
    listing = dir_listing(dir);
    CHECK_STR(listing, "");
    free(listing);
    fbs_task_free(t);
    fbs_reference_free(missing);
    fbs_reference_free(r);
    free(dest);
    free(dir);
    free(bytes);
    fbs_storage_free(s);
}

static int write_object_to(fbs_reference *r, const char *path) {
    fbs_task *t = NULL;
    int rc = fbs_reference_write_to_file(r, path, &t);
    if (rc == FBS_OK) rc = fbs_task_wait(t, 30000);
    fbs_task_free(t);
    return rc;
}

static mode_t mode_of(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 ? st.st_mode & 07777 : (mode_t)-1;
}

/* New files get 0666 & ~umask, as open(2) gives; a replaced file keeps its bits; a read-only
 * file is refused at once and left as it is. */
TEST(write_to_file_permissions) {
    fbs_storage *s = new_storage();
    REQUIRE(upload_bytes(s, "perm/object.txt", "fresh bytes", 11) == FBS_OK);
    fbs_reference *r = new_ref(s, "perm/object.txt");
    static const mode_t masks[] = {022, 077, 002};
    for (size_t i = 0; i < sizeof masks / sizeof *masks; i++) {
        mode_t old = umask(masks[i]);
        char *path = temp_path(".txt");
        CHECK_CODE(write_object_to(r, path), FBS_OK);
        CHECK_EQ_INT(mode_of(path), 0666 & ~masks[i]);
        umask(old);
        unlink(path);
        free(path);
    }
    char *kept = temp_file_with("old", 3, ".txt");
    REQUIRE(chmod(kept, 0640) == 0);
    CHECK_CODE(write_object_to(r, kept), FBS_OK);
    CHECK_EQ_INT(mode_of(kept), 0640);
    size_t n = 0;
    unsigned char *got = read_file(kept, &n);
    CHECK(got && bytes_equal(got, n, "fresh bytes", 11));
    free(got);

    char *readonly = temp_file_with("keep me", 7, ".txt");
    REQUIRE(chmod(readonly, 0444) == 0);
    fbs_task *t = NULL;
    CHECK_CODE(fbs_reference_write_to_file(r, readonly, &t), FBS_ERR_UNKNOWN);
    CHECK(t == NULL && strstr(fbs_last_error_message(), "read-only") != NULL);
    CHECK_EQ_INT(mode_of(readonly), 0444);
    got = read_file(readonly, &n);
    CHECK(got && bytes_equal(got, n, "keep me", 7));
    free(got);
    unlink(kept);
    unlink(readonly);
    free(kept);
    free(readonly);
    fbs_reference_free(r);
    fbs_storage_free(s);
}
