/* test_stream.c — fbstorage/stream.h: byte ranges at every edge (call, async call, task), a
 * streaming download into a sink (resumed after cut connections without a byte twice, a sink
 * that refuses, an object replaced mid-way, pause/resume), uploads from a stream of unknown
 * length and from a pipe, a download to a pipe, and a token URL that downloads without auth. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "events.h"

#define KIB 1024

/* ---- ranges ---------------------------------------------------------------------------- */

/* get_range(offset, length) must return exactly want[0..want_n), or fail with code. */
static void check_range(fbs_reference *r, int64_t offset, int64_t length, const unsigned char *want, size_t want_n, int code) {
    void *bytes = NULL;
    size_t n = 12345;
    int rc = fbs_reference_get_range(r, offset, length, INT64_MAX, &bytes, &n);
    if (!check_code(rc, code, "fbs_reference_get_range", __FILE__, __LINE__)) {
        fprintf(stderr, "    range (%lld, %lld)\n", (long long)offset, (long long)length);
    }
    if (code == FBS_OK) {
        CHECK(bytes != NULL);
        if (!bytes_equal(bytes, n, want, want_n))
            check_fail(__FILE__, __LINE__, "range (%lld, %lld): %zu bytes, wanted %zu", (long long)offset, (long long)length, n, want_n);
    }
    fbs_data_free(bytes);
}

typedef struct range_result {
    completion c;
    unsigned char *bytes;
} range_result;

static void range_done(int status, const void *bytes, size_t length, void *user_data) {
    range_result *result = user_data;
    result->bytes = malloc(length + 1);
    if (length) memcpy(result->bytes, bytes, length);
    result->c.length = length;
    completion_record(&result->c, status);
}

TEST(ranges_at_every_edge) {
    fbs_storage *s = new_storage();
    const size_t size = 300 * KIB;
    unsigned char *bytes = random_bytes(size, 61);
    REQUIRE_OK(upload_bytes(s, "range/data.bin", bytes, size));
    REQUIRE_OK(upload_bytes(s, "range/empty.bin", NULL, 0));
    fbs_reference *r = new_ref(s, "range/data.bin");
    check_range(r, 0, 1, bytes, 1, FBS_OK);                          /* the first byte */
    check_range(r, 0, (int64_t)size, bytes, size, FBS_OK);           /* all of it */
    check_range(r, 0, -1, bytes, size, FBS_OK);                      /* from 0 to the end */
    check_range(r, (int64_t)size - 1, 1, bytes + size - 1, 1, FBS_OK);   /* the last byte */
    check_range(r, (int64_t)size - 1, -1, bytes + size - 1, 1, FBS_OK);
    check_range(r, -1, -1, bytes + size - 1, 1, FBS_OK);
    check_range(r, 1000, 4096, bytes + 1000, 4096, FBS_OK);
    check_range(r, -(int64_t)size, -1, bytes, size, FBS_OK);          /* the last `size` bytes */
    check_range(r, 5, 0, bytes, 0, FBS_OK);                           /* empty, inside */
    check_range(r, (int64_t)size, 0, bytes, 0, FBS_OK);               /* empty, at the end */
    check_range(r, (int64_t)size, -1, bytes, 0, FBS_OK);
    check_range(r, (int64_t)size, 1, NULL, 0, FBS_ERR_RANGE_NOT_SATISFIABLE);   /* past the end */
    check_range(r, (int64_t)size - 1, 2, NULL, 0, FBS_ERR_RANGE_NOT_SATISFIABLE);
    check_range(r, (int64_t)size + 1, -1, NULL, 0, FBS_ERR_RANGE_NOT_SATISFIABLE);
    check_range(r, -(int64_t)size - 1, -1, NULL, 0, FBS_ERR_RANGE_NOT_SATISFIABLE);
    CHECK(strstr(fbs_last_error_message(), "past the end") != NULL);
    check_range(r, -1, 5, NULL, 0, FBS_ERR_INVALID_ARGUMENT);
    void *out = NULL;
    size_t n = 0;
    CHECK_CODE(fbs_reference_get_range(r, 0, 2000, 1999, &out, &n), FBS_ERR_DOWNLOAD_SIZE_EXCEEDED);
    CHECK_CODE(fbs_reference_get_range(r, 0, 10, -1, &out, &n), FBS_ERR_INVALID_ARGUMENT);

    fbs_reference *empty = new_ref(s, "range/empty.bin");
    check_range(empty, 0, -1, bytes, 0, FBS_OK);
    check_range(empty, 0, 0, bytes, 0, FBS_OK);
    check_range(empty, 0, 1, NULL, 0, FBS_ERR_RANGE_NOT_SATISFIABLE);
    check_range(empty, -1, -1, NULL, 0, FBS_ERR_RANGE_NOT_SATISFIABLE);
    fbs_reference *missing = new_ref(s, "range/missing.bin");
    check_range(missing, 0, 1, NULL, 0, FBS_ERR_OBJECT_NOT_FOUND);

    /* The async form. */
    range_result async_result = {0};
    completion_init(&async_result.c);
    REQUIRE_OK(fbs_reference_get_range_async(r, 7, 100, INT64_MAX, range_done, &async_result));
    REQUIRE(completion_wait(&async_result.c, 30000));
    CHECK_EQ_INT(async_result.c.status, FBS_OK);
    CHECK(bytes_equal(async_result.bytes, async_result.c.length, bytes + 7, 100));
    free(async_result.bytes);
    memset(&async_result, 0, sizeof async_result);
    completion_init(&async_result.c);
    REQUIRE_OK(fbs_reference_get_range_async(r, (int64_t)size, 1, INT64_MAX, range_done, &async_result));
    REQUIRE(completion_wait(&async_result.c, 30000));
    CHECK_EQ_INT(async_result.c.status, FBS_ERR_RANGE_NOT_SATISFIABLE);
    free(async_result.bytes);

    /* The task form, into a caller's buffer. */
    unsigned char buffer[4096];
    fbs_task *t = NULL;
    REQUIRE_OK(fbs_reference_read_range(r, -4096, -1, buffer, sizeof buffer, &t));
    CHECK_CODE(fbs_task_wait(t, 30000), FBS_OK);
    fbs_snapshot *snap = NULL;
    REQUIRE_OK(fbs_task_snapshot(t, &snap));
    CHECK_EQ_INT(fbs_snapshot_bytes_transferred(snap), 4096);
    fbs_snapshot_free(snap);
    CHECK(memcmp(buffer, bytes + size - 4096, 4096) == 0);
    fbs_task_free(t);
    REQUIRE_OK(fbs_reference_read_range(r, 0, 4097, buffer, sizeof buffer, &t));
    CHECK_CODE(fbs_task_wait(t, 30000), FBS_ERR_DOWNLOAD_SIZE_EXCEEDED);
    fbs_task_free(t);
    CHECK_CODE(fbs_reference_read_range(r, 0, 1, NULL, 1, &t), FBS_ERR_INVALID_ARGUMENT);

    fbs_reference_free(missing);
    fbs_reference_free(empty);
    fbs_reference_free(r);
    free(bytes);
    fbs_storage_free(s);
}

/* ---- streaming downloads --------------------------------------------------------------- */

typedef struct collected {
    pthread_mutex_t lock;
    unsigned char *bytes;
    size_t length, capacity;
    size_t calls;
    size_t refuse_after;   /* refuse once this many bytes arrived (0: never) */
    int refusal;           /* what to return when refusing */
    fbs_task *pause_task;  /* pause this task once pause_after bytes arrived */
    size_t pause_after, length_at_pause;
    int paused;
    pthread_cond_t opened;
    int gated, open;       /* gated: the sink waits for collected_open() (the task handle is set) */
} collected;

static int collect(const void *bytes, size_t length, void *user_data) {
    collected *c = user_data;
    pthread_mutex_lock(&c->lock);
    while (c->gated && !c->open) pthread_cond_wait(&c->opened, &c->lock);
    c->calls++;
    if (c->refuse_after && c->length >= c->refuse_after) {
        pthread_mutex_unlock(&c->lock);
        return c->refusal;
    }
    if (c->length + length > c->capacity) {
        c->capacity = (c->length + length) * 2;
        c->bytes = realloc(c->bytes, c->capacity);
    }
    memcpy(c->bytes + c->length, bytes, length);
    c->length += length;
    if (c->pause_task && !c->paused && c->length >= c->pause_after) {
        c->paused = 1;
        c->length_at_pause = c->length;
        fbs_task_pause(c->pause_task);   /* allowed from the sink; acts at once */
    }
    pthread_mutex_unlock(&c->lock);
    return 0;
}

static void collected_init(collected *c) {
    memset(c, 0, sizeof *c);
    pthread_mutex_init(&c->lock, NULL);
    pthread_cond_init(&c->opened, NULL);
}

/* Lets a gated sink take bytes, pausing task t once pause_after bytes arrived. */
static void collected_open(collected *c, fbs_task *t, size_t pause_after) {
    pthread_mutex_lock(&c->lock);
    c->pause_task = t;
    c->pause_after = pause_after;
    c->open = 1;
    pthread_cond_broadcast(&c->opened);
    pthread_mutex_unlock(&c->lock);
}

TEST(stream_delivers_each_byte_once_through_cut_connections) {
    fbs_storage *s = new_storage();
    const size_t size = 16 * 1024 * KIB;
    unsigned char *bytes = random_bytes(size, 62);
    REQUIRE_OK(upload_bytes(s, "stream/cut.bin", bytes, size));
    /* Two 503s, then a pause and a resume mid-stream: each new request continues with Range.
     * (Connections cut at random points: the fault proxy in bindings/python/tests.) */
    fault_match media = {.method = "GET", .path_prefix = object_prefix("stream/cut.bin"), .times = 2};
    emu_fault_status(EMU, media, 503, 0);
    fbs_reference *r = new_ref(s, "stream/cut.bin");
    collected c;
    collected_init(&c);
    c.gated = 1;
    fbs_task *t = NULL;
    REQUIRE_OK(fbs_reference_stream(r, 0, -1, collect, &c, &t));
    event_log log;
    event_log_init(&log);
    observe_all(t, &log);
    collected_open(&c, t, size / 3);
    REQUIRE(event_log_wait(&log, FBS_TASK_STATUS_PAUSE, 30000));
    pthread_mutex_lock(&c.lock);
    CHECK_EQ_INT(c.length, c.length_at_pause);   /* nothing after the pausing block */
    pthread_mutex_unlock(&c.lock);
    REQUIRE_OK(fbs_task_resume(t));
    CHECK_CODE(fbs_task_wait(t, 60000), FBS_OK);
    CHECK(bytes_equal(c.bytes, c.length, bytes, size));
    check_event_order(&log, FBS_TASK_STATUS_SUCCESS);
    fbs_task_free(t);
    free(c.bytes);

    /* A range streams only its bytes. */
    collected_init(&c);
    REQUIRE_OK(fbs_reference_stream(r, 1000, 200 * KIB, collect, &c, &t));
    CHECK_CODE(fbs_task_wait(t, 60000), FBS_OK);
    CHECK(bytes_equal(c.bytes, c.length, bytes + 1000, 200 * KIB));
    fbs_task_free(t);
    free(c.bytes);
    fbs_reference_free(r);
    free(bytes);
    fbs_storage_free(s);
}

TEST(stream_sink_refusal_ends_the_task_with_its_code) {
    fbs_storage *s = new_storage();
    const size_t size = 2 * 1024 * KIB;
    unsigned char *bytes = random_bytes(size, 63);
    REQUIRE_OK(upload_bytes(s, "stream/refuse.bin", bytes, size));
    fbs_reference *r = new_ref(s, "stream/refuse.bin");
    collected c;
    collected_init(&c);
    c.refuse_after = 1;
    c.refusal = FBS_ERR_CANCELLED;
    fbs_task *t = NULL;
    REQUIRE_OK(fbs_reference_stream(r, 0, -1, collect, &c, &t));
    CHECK_CODE(fbs_task_wait(t, 30000), FBS_ERR_CANCELLED);
    CHECK(strstr(fbs_last_error_message(), "sink refused") != NULL);
    fbs_task_free(t);
    size_t calls = c.calls;
    CHECK(c.length < size);
    free(c.bytes);
    /* A value that is no fbs code fails with FBS_ERR_UNKNOWN and names the value. */
    collected_init(&c);
    c.refuse_after = 1;
    c.refusal = 42;
    REQUIRE_OK(fbs_reference_stream(r, 0, -1, collect, &c, &t));
    CHECK_CODE(fbs_task_wait(t, 30000), FBS_ERR_UNKNOWN);
    CHECK(strstr(fbs_last_error_message(), "returned 42") != NULL);
    fbs_task_free(t);
    free(c.bytes);
    CHECK(calls >= 2);
    CHECK_CODE(fbs_reference_stream(r, 0, -1, NULL, NULL, &t), FBS_ERR_INVALID_ARGUMENT);
    fbs_reference_free(r);
    free(bytes);
    fbs_storage_free(s);
}

TEST(stream_fails_when_the_object_is_replaced_midway) {
    fbs_storage *s = new_storage();
    const size_t size = 16 * 1024 * KIB;
    unsigned char *first = random_bytes(size, 64), *second = random_bytes(size, 65);
    REQUIRE_OK(upload_bytes(s, "stream/replaced.bin", first, size));
    fbs_reference *r = new_ref(s, "stream/replaced.bin");
    collected c;
    collected_init(&c);
    c.gated = 1;
    fbs_task *t = NULL;
    REQUIRE_OK(fbs_reference_stream(r, 0, -1, collect, &c, &t));
    event_log log;
    event_log_init(&log);
    observe_all(t, &log);
    collected_open(&c, t, 1);
    REQUIRE(event_log_wait(&log, FBS_TASK_STATUS_PAUSE, 30000));
    emu_put_object(EMU, "stream/replaced.bin", second, size);
    REQUIRE_OK(fbs_task_resume(t));
    CHECK_CODE(fbs_task_wait(t, 30000), FBS_ERR_OBJECT_CHANGED);
    CHECK(strstr(fbs_last_error_message(), "replaced") != NULL);
    /* Only bytes of the first version reached the sink. */
    CHECK(c.length < size && bytes_equal(c.bytes, c.length, first, c.length));
    fbs_task_free(t);
    free(c.bytes);
    fbs_reference_free(r);
    free(first);
    free(second);
    fbs_storage_free(s);
}

/* ---- uploads from streams -------------------------------------------------------------- */

typedef struct stream_source {
    const unsigned char *bytes;
    size_t length, offset;
    size_t fail_at;   /* fail once this many bytes were read (0: never) */
    size_t max_read;  /* at most this many bytes per call (0: no limit) */
} stream_source;

static int64_t read_source(void *buffer, size_t capacity, void *user_data) {
    stream_source *src = user_data;
    if (src->fail_at && src->offset >= src->fail_at) return -5;
    size_t n = src->length - src->offset;
    if (n > capacity) n = capacity;
    if (src->max_read && n > src->max_read) n = src->max_read;
    memcpy(buffer, src->bytes + src->offset, n);
    src->offset += n;
    return (int64_t)n;
}

static void check_stream_upload(fbs_storage *s, size_t size) {
    unsigned char *bytes = random_bytes(size, (unsigned)size);
    char path[64];
    snprintf(path, sizeof path, "stream/up-%zu.bin", size);
    fbs_reference *r = new_ref(s, path);
    stream_source src = {.bytes = bytes, .length = size, .max_read = 100000};
    fbs_task *t = NULL;
    REQUIRE_OK(fbs_reference_put_stream(r, read_source, &src, NULL, &t));
    if (!check_code(fbs_task_wait(t, 120000), FBS_OK, "put_stream", __FILE__, __LINE__))
        fprintf(stderr, "    size %zu\n", size);
    char *session = (char *)1;
    CHECK_CODE(fbs_task_upload_session(t, &session), FBS_OK);
    CHECK(session == NULL);
    fbs_task_free(t);
    size_t n = 0;
    unsigned char *stored = emu_fetch_object(EMU, path, &n);
    if (!bytes_equal(stored, n, bytes, size)) check_fail(__FILE__, __LINE__, "stored %zu bytes for a stream of %zu", n, size);
    free(stored);
    fbs_reference_free(r);
    free(bytes);
}

TEST_EX(put_stream_of_unknown_length_every_size, TEST_NEEDS_EMULATOR, 180) {
    fbs_storage *s = new_storage();
    REQUIRE_OK(fbs_storage_set_upload_chunk_size(s, 256 * KIB));
    const size_t sizes[] = {0, 1, 256 * KIB, 256 * KIB + 1, 512 * KIB, 1024 * KIB + 7};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) check_stream_upload(s, sizes[i]);
    REQUIRE_OK(fbs_storage_set_upload_chunk_size(s, 8 * 1024 * KIB));
    check_stream_upload(s, 24 * 1024 * KIB + 3);   /* tens of MiB, in 8 MiB chunks */
    fbs_storage_free(s);
}

TEST(put_stream_whose_source_fails_stores_nothing) {
    fbs_storage *s = new_storage();
    REQUIRE_OK(fbs_storage_set_upload_chunk_size(s, 256 * KIB));
    const size_t size = 2 * 1024 * KIB;
    unsigned char *bytes = random_bytes(size, 66);
    fbs_reference *r = new_ref(s, "stream/failing.bin");
    stream_source src = {.bytes = bytes, .length = size, .fail_at = 1024 * KIB};
    fbs_task *t = NULL;
    REQUIRE_OK(fbs_reference_put_stream(r, read_source, &src, NULL, &t));
    CHECK_CODE(fbs_task_wait(t, 60000), FBS_ERR_UNKNOWN);
    CHECK(strstr(fbs_last_error_message(), "read callback failed") != NULL);
    fbs_task_free(t);
    emu_wait_idle(EMU, 10000);
    size_t n = 0;
    CHECK(emu_fetch_object(EMU, "stream/failing.bin", &n) == NULL);
    CHECK_CODE(fbs_reference_put_stream(r, NULL, NULL, NULL, &t), FBS_ERR_INVALID_ARGUMENT);
    fbs_reference_free(r);
    free(bytes);
    fbs_storage_free(s);
}

TEST(put_stream_pause_and_resume) {
    fbs_storage *s = new_storage();
    REQUIRE_OK(fbs_storage_set_upload_chunk_size(s, 256 * KIB));
    const size_t size = 3 * 1024 * KIB;
    unsigned char *bytes = random_bytes(size, 67);
    fbs_reference *r = new_ref(s, "stream/paused.bin");
    stream_source src = {.bytes = bytes, .length = size};
    fbs_task *t = NULL;
    REQUIRE_OK(fbs_reference_put_stream(r, read_source, &src, NULL, &t));
    event_log log;
    event_log_init(&log);
    observe_all(t, &log);
    REQUIRE(wait_for_bytes(t, 512 * KIB, 30000));
    REQUIRE_OK(fbs_task_pause(t));
    REQUIRE(event_log_wait(&log, FBS_TASK_STATUS_PAUSE, 30000));
    REQUIRE_OK(fbs_task_resume(t));
    CHECK_CODE(fbs_task_wait(t, 60000), FBS_OK);
    size_t n = 0;
    unsigned char *stored = emu_fetch_object(EMU, "stream/paused.bin", &n);
    CHECK(bytes_equal(stored, n, bytes, size));
    free(stored);
    fbs_task_free(t);
    fbs_reference_free(r);
    free(bytes);
    fbs_storage_free(s);
}

/* ---- file descriptors ------------------------------------------------------------------ */

typedef struct pipe_writer {
    int fd;
    const unsigned char *bytes;
    size_t length;
} pipe_writer;

static void *write_pipe(void *arg) {
    pipe_writer *w = arg;
    size_t done = 0;
    while (done < w->length) {
        ssize_t n = write(w->fd, w->bytes + done, w->length - done > 65536 ? 65536 : w->length - done);
        if (n <= 0) break;
        done += (size_t)n;
    }
    close(w->fd);
    return NULL;
}

/* Uploads size random bytes (seeded) to name through a pipe a thread fills; checks what is
 * stored, and that the descriptor is left open (the caller's). The bytes are the caller's. */
static unsigned char *put_through_pipe(fbs_reference *r, const char *name, size_t size, unsigned seed) {
    unsigned char *bytes = random_bytes(size, seed);
    int fds[2];
    REQUIRE(pipe(fds) == 0);
    pipe_writer w = {fds[1], bytes, size};
    pthread_t writer;
    REQUIRE(pthread_create(&writer, NULL, write_pipe, &w) == 0);
    fbs_task *t = NULL;
    REQUIRE_OK(fbs_reference_put_fd(r, fds[0], NULL, &t));
    CHECK_CODE(fbs_task_wait(t, 120000), FBS_OK);
    fbs_task_free(t);
    pthread_join(writer, NULL);
    CHECK(fcntl(fds[0], F_GETFD) >= 0);
    close(fds[0]);
    size_t n = 0;
    unsigned char *stored = emu_fetch_object(EMU, name, &n);
    CHECK(bytes_equal(stored, n, bytes, size));
    free(stored);
    return bytes;
}

TEST(put_fd_from_a_pipe_and_write_to_fd_into_a_pipe) {
    fbs_storage *s = new_storage();
    const size_t size = 1536 * KIB + 11;
    fbs_reference *r = new_ref(s, "stream/piped.bin");
    unsigned char *bytes = put_through_pipe(r, "stream/piped.bin", size, 68);
    int fds[2];
    fbs_task *t = NULL;

    /* Download into a pipe, read by this thread. */
    REQUIRE(pipe(fds) == 0);
    REQUIRE_OK(fbs_reference_write_to_fd(r, fds[1], &t));
    unsigned char *got = malloc(size + 1);
    size_t have = 0;
    while (have < size) {
        ssize_t k = read(fds[0], got + have, size + 1 - have);
        if (k <= 0) break;
        have += (size_t)k;
    }
    CHECK_CODE(fbs_task_wait(t, 60000), FBS_OK);
    close(fds[1]);
    CHECK(bytes_equal(got, have, bytes, size));
    fbs_task_free(t);
    free(got);
    close(fds[0]);
    CHECK_CODE(fbs_reference_write_to_fd(r, -1, &t), FBS_ERR_INVALID_ARGUMENT);
    CHECK_CODE(fbs_reference_put_fd(r, 987654, NULL, &t), FBS_ERR_INVALID_ARGUMENT);
    fbs_reference_free(r);
    free(bytes);
    fbs_storage_free(s);
}

static int thread_count(void) {
    int n = 0;
    DIR *tasks = opendir("/proc/self/task");
    if (!tasks) return -1;
    for (struct dirent *entry; (entry = readdir(tasks));) n += entry->d_name[0] != '.';
    closedir(tasks);
    return n;
}

/* A descriptor is read ahead on a thread of its own: across several chunks the bytes arrive in
 * order and whole, while the next chunk is read during the one on the wire. */
TEST(put_fd_reads_ahead_across_chunks) {
    fbs_storage *s = new_storage();
    fbs_reference *r = new_ref(s, "stream/ahead.bin");
    free(put_through_pipe(r, "stream/ahead.bin", 20 * 1024 * KIB + 5, 69));   /* three 8 MiB chunks */
    fbs_reference_free(r);
    fbs_storage_free(s);
}

/* A pipe that never delivers: cancelling the upload ends it, and its reader thread stops
 * (blocked in poll, it is woken), leaving the descriptor open. */
TEST(put_fd_on_a_silent_pipe_cancels_and_stops_its_reader) {
    fbs_storage *s = new_storage();
    int before = thread_count();
    int fds[2];
    REQUIRE(pipe(fds) == 0);
    fbs_reference *r = new_ref(s, "stream/silent.bin");
    fbs_task *t = NULL;
    REQUIRE_OK(fbs_reference_put_fd(r, fds[0], NULL, &t));
    CHECK(thread_count() == before + 1);
    REQUIRE_OK(fbs_task_cancel(t));
    CHECK_CODE(fbs_task_wait(t, 30000), FBS_ERR_CANCELLED);
    fbs_task_free(t);
    fbs_reference_free(r);
    double deadline = now_s() + 10;
    while (thread_count() > before && now_s() < deadline) usleep(1000);   /* the reader's exit */
    CHECK_EQ_INT(thread_count(), before);
    CHECK(fcntl(fds[0], F_GETFD) >= 0);
    close(fds[0]);
    close(fds[1]);
    fbs_storage_free(s);
}

/* ---- token URLs ------------------------------------------------------------------------ */

TEST(token_url_downloads_without_auth) {
    fbs_storage *s = new_storage();
    unsigned char *bytes = random_bytes(5000, 69);
    REQUIRE_OK(upload_bytes(s, "private/fw.bin", bytes, 5000));
    fbs_reference *r = new_ref(s, "private/fw.bin");
    char *url = NULL;
    REQUIRE_OK(fbs_reference_download_url(r, &url));
    /* From now on only the token grants reads. */
    static const char *const rules =
        "rules_version = '2';\nservice firebase.storage {\n  match /b/{bucket}/o {\n"
        "    match /{all=**} { allow read, write: if false; }\n  }\n}\n";
    char control[256];
    snprintf(control, sizeof control, "%s/_emulator/rules", EMU->base_url);
    REQUIRE(http_request("PUT", control, NULL, rules, strlen(rules), NULL) == 204);
    void *out = NULL;
    size_t n = 0;
    CHECK_CODE(fbs_reference_get_data(r, INT64_MAX, &out, &n), FBS_ERR_UNAUTHORIZED);

    fbs_storage *anonymous = new_storage();
    fbs_reference *by_url = NULL;
    REQUIRE_OK(fbs_storage_reference_for_url(anonymous, url, &by_url));
    CHECK_CODE(fbs_reference_get_data(by_url, INT64_MAX, &out, &n), FBS_OK);
    CHECK(bytes_equal(out, n, bytes, 5000));
    fbs_data_free(out);
    out = NULL;
    CHECK_CODE(fbs_reference_get_range(by_url, 10, 20, INT64_MAX, &out, &n), FBS_OK);
    CHECK(bytes_equal(out, n, bytes + 10, 20));
    fbs_data_free(out);
    char *local = temp_path(".bin");
    fbs_task *t = NULL;
    REQUIRE_OK(fbs_reference_write_to_file(by_url, local, &t));
    CHECK_CODE(fbs_task_wait(t, 30000), FBS_OK);
    fbs_task_free(t);
    unsigned char *file = read_file(local, &n);
    CHECK(bytes_equal(file, n, bytes, 5000));
    free(file);
    free(local);
    /* A child has no token: denied. */
    fbs_reference *parent = NULL;
    REQUIRE_OK(fbs_reference_parent(by_url, &parent));
    fbs_reference *again = NULL;
    REQUIRE_OK(fbs_reference_child(parent, "fw.bin", &again));
    CHECK_CODE(fbs_reference_get_data(again, INT64_MAX, &out, &n), FBS_ERR_UNAUTHORIZED);
    /* A wrong token is refused. */
    char *wrong = strdup(url);
    char *token = strstr(wrong, "token=") + 6;
    token[0] = token[0] == 'a' ? 'b' : 'a';
    fbs_reference *forged = NULL;
    REQUIRE_OK(fbs_storage_reference_for_url(anonymous, wrong, &forged));
    CHECK(fbs_reference_get_data(forged, INT64_MAX, &out, &n) != FBS_OK);
    free(wrong);
    fbs_reference_free(forged);
    fbs_reference_free(again);
    fbs_reference_free(parent);
    fbs_reference_free(by_url);
    fbs_storage_free(anonymous);
    fbs_string_free(url);
    fbs_reference_free(r);
    free(bytes);
    fbs_storage_free(s);
}

/* ---- a producer slower than the upload: FBS_SOURCE_NOT_READY ---------------------------- */

typedef struct producer {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    const unsigned char *bytes;
    size_t length, produced, consumed;
    int waiting;          /* the callback answered NOT_READY and nobody resumed yet */
    int not_ready_answers;
    fbs_task *task;
} producer;

static int64_t read_produced(void *buffer, size_t capacity, void *user_data) {
    producer *p = user_data;
    pthread_mutex_lock(&p->lock);
    int64_t n;
    if (p->consumed == p->length && p->produced == p->length) {
        n = 0;
    } else if (p->consumed == p->produced) {
        p->waiting = 1;
        p->not_ready_answers++;
        n = FBS_SOURCE_NOT_READY;
    } else {
        size_t k = p->produced - p->consumed;
        if (k > capacity) k = capacity;
        memcpy(buffer, p->bytes + p->consumed, k);
        p->consumed += k;
        n = (int64_t)k;
    }
    pthread_cond_broadcast(&p->changed);
    pthread_mutex_unlock(&p->lock);
    return n;
}

TEST(put_stream_waits_for_a_slow_producer_without_blocking_other_transfers) {
    fbs_storage *s = new_storage();
    REQUIRE_OK(fbs_storage_set_upload_chunk_size(s, 256 * KIB));
    REQUIRE_OK(upload_bytes(s, "stream/other.bin", "x", 1));
    const size_t size = 1024 * KIB + 5;
    unsigned char *bytes = random_bytes(size, 70);
    producer p = {.bytes = bytes, .length = size};
    pthread_mutex_init(&p.lock, NULL);
    pthread_cond_init(&p.changed, NULL);
    fbs_reference *r = new_ref(s, "stream/slow.bin"), *other = new_ref(s, "stream/other.bin");
    fbs_task *t = NULL;
    REQUIRE_OK(fbs_reference_put_stream(r, read_produced, &p, NULL, &t));
    size_t step = 100 * KIB;
    for (;;) {
        /* Wait until the upload has asked for bytes it does not have yet. */
        pthread_mutex_lock(&p.lock);
        while (!p.waiting) pthread_cond_wait(&p.changed, &p.lock);
        p.waiting = 0;
        int done = p.produced == p.length;
        pthread_mutex_unlock(&p.lock);
        /* Meanwhile the storage's other transfers go on. */
        fbs_metadata *m = NULL;
        CHECK_CODE(fbs_reference_get_metadata(other, &m), FBS_OK);
        fbs_metadata_free(m);
        pthread_mutex_lock(&p.lock);
        p.produced = done ? p.length : (p.produced + step > p.length ? p.length : p.produced + step);
        pthread_mutex_unlock(&p.lock);
        REQUIRE_OK(fbs_task_resume(t));
        if (done || p.produced == p.length) break;
    }
    CHECK_CODE(fbs_task_wait(t, 60000), FBS_OK);
    CHECK(p.not_ready_answers >= 10);
    size_t n = 0;
    unsigned char *stored = emu_fetch_object(EMU, "stream/slow.bin", &n);
    CHECK(bytes_equal(stored, n, bytes, size));
    free(stored);
    fbs_task_free(t);
    fbs_reference_free(other);
    fbs_reference_free(r);
    free(bytes);
    fbs_storage_free(s);
}

TEST(write_to_fd_whose_reader_went_away_fails_without_sigpipe) {
    fbs_storage *s = new_storage();
    unsigned char *bytes = random_bytes(2 * 1024 * KIB, 71);
    REQUIRE_OK(upload_bytes(s, "stream/epipe.bin", bytes, 2 * 1024 * KIB));
    fbs_reference *r = new_ref(s, "stream/epipe.bin");
    int fds[2];
    REQUIRE(pipe(fds) == 0);
    close(fds[0]);   /* nobody reads: a write would raise SIGPIPE, which ends the process by default */
    fbs_task *t = NULL;
    REQUIRE_OK(fbs_reference_write_to_fd(r, fds[1], &t));
    CHECK_CODE(fbs_task_wait(t, 30000), FBS_ERR_UNKNOWN);
    CHECK(strstr(fbs_last_error_message(), "Broken pipe") != NULL);
    fbs_task_free(t);
    close(fds[1]);
    fbs_reference_free(r);
    free(bytes);
    fbs_storage_free(s);
}
