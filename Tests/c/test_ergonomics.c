/* test_ergonomics.c — what wrappers of the C API rely on: the destroy callbacks of the _full
 * calls run exactly once, when their callback is dropped and after its last call returned;
 * fbs_metadata_copy; the last error's one lifetime; an upload session after fbs_storage_free
 * (kept: it resumes) versus after fbs_task_cancel (ended: a resume fails). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "reqlog.h"

#define KIB 1024
#define CHUNK (256 * KIB)

/* One user_data: how often its callback ran, whether it ran after its destroy, and how often it
 * was destroyed. Shared counters under one lock, so tests can wait for a destroy. */
typedef struct owned {
    int calls, destroyed, called_after_destroy, inside_callback_at_destroy;
    int running;
} owned;

static pthread_mutex_t owned_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t owned_changed = PTHREAD_COND_INITIALIZER;

static void on_event(const fbs_snapshot *snapshot, void *user_data) {
    (void)snapshot;
    owned *o = user_data;
    pthread_mutex_lock(&owned_lock);
    o->calls++;
    if (o->destroyed) o->called_after_destroy++;
    pthread_mutex_unlock(&owned_lock);
}

static void destroy_owned(void *user_data) {
    owned *o = user_data;
    pthread_mutex_lock(&owned_lock);
    o->destroyed++;
    if (o->running) o->inside_callback_at_destroy++;
    pthread_cond_broadcast(&owned_changed);
    pthread_mutex_unlock(&owned_lock);
}

static int destroyed(owned *o) {
    pthread_mutex_lock(&owned_lock);
    int n = o->destroyed;
    pthread_mutex_unlock(&owned_lock);
    return n;
}

/* Waits until o was destroyed at least once; 1 if it was. */
static int wait_destroyed(owned *o, int timeout_ms) {
    double until = now_s() + timeout_ms / 1000.0;
    pthread_mutex_lock(&owned_lock);
    while (!o->destroyed && now_s() < until) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 20 * 1000 * 1000;
        if (ts.tv_nsec >= 1000000000) { ts.tv_sec++; ts.tv_nsec -= 1000000000; }
        pthread_cond_timedwait(&owned_changed, &owned_lock, &ts);
    }
    int n = o->destroyed;
    pthread_mutex_unlock(&owned_lock);
    return n > 0;
}

static fbs_task *slow_put_data(fbs_storage *s, const char *path, size_t n, unsigned seed) {
    REQUIRE_OK(fbs_storage_set_upload_chunk_size(s, CHUNK));
    emu_fault_delay(EMU, (fault_match){NULL, "upload", NULL, NULL, FOREVER}, 50);
    unsigned char *bytes = random_bytes(n, seed);
    fbs_reference *r = new_ref(s, path);
    fbs_task *t = NULL;
    REQUIRE_OK(fbs_reference_put_data(r, bytes, n, NULL, &t));
    fbs_reference_free(r);
    free(bytes);
    return t;
}

TEST(observe_full_destroys_once_on_removal_and_at_the_end) {
    fbs_storage *s = new_storage();
    char *path = unique_path("ergonomics/observers");
    fbs_task *t = slow_put_data(s, path, 4 * CHUNK, 71);
    owned removed = {0}, progress = {0}, success = {0}, pause = {0};
    fbs_observer_handle h = 0;
    REQUIRE_OK(fbs_task_observe_full(t, FBS_TASK_STATUS_PROGRESS, on_event, &removed, destroy_owned, &h));
    REQUIRE_OK(fbs_task_observe_full(t, FBS_TASK_STATUS_PROGRESS, on_event, &progress, destroy_owned, NULL));
    REQUIRE_OK(fbs_task_observe_full(t, FBS_TASK_STATUS_SUCCESS, on_event, &success, destroy_owned, NULL));
    REQUIRE_OK(fbs_task_observe_full(t, FBS_TASK_STATUS_PAUSE, on_event, &pause, destroy_owned, NULL));
    REQUIRE(wait_for_bytes(t, CHUNK, 20000));
    REQUIRE_OK(fbs_task_remove_observer(t, h));
    CHECK_EQ_INT(destroyed(&removed), 1);   /* before the removal returned */
    REQUIRE_OK(fbs_task_remove_observer(t, h));   /* removing it again drops nothing */
    CHECK_EQ_INT(destroyed(&removed), 1);
    CHECK_EQ_INT(destroyed(&progress) + destroyed(&success) + destroyed(&pause), 0);

    CHECK_CODE(fbs_task_wait(t, 60000), FBS_OK);
    /* The end removes every observer: the one that fired, and those that never did. */
    CHECK(wait_destroyed(&success, 10000) && wait_destroyed(&progress, 10000) && wait_destroyed(&pause, 10000));
    CHECK_EQ_INT(success.calls, 1);
    CHECK(progress.calls >= 1);
    CHECK_EQ_INT(pause.calls, 0);

    /* On the ended task: an observer of another status can never fire and is dropped at once;
     * one of the final status fires once, then is dropped. */
    owned never = {0}, late = {0};
    REQUIRE_OK(fbs_task_observe_full(t, FBS_TASK_STATUS_PROGRESS, on_event, &never, destroy_owned, NULL));
    CHECK_EQ_INT(destroyed(&never), 1);
    CHECK_EQ_INT(never.calls, 0);
    REQUIRE_OK(fbs_task_observe_full(t, FBS_TASK_STATUS_SUCCESS, on_event, &late, destroy_owned, NULL));
    CHECK(wait_destroyed(&late, 10000));
    CHECK_EQ_INT(late.calls, 1);

    owned *all[] = {&removed, &progress, &success, &pause, &never, &late};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) {
        CHECK_EQ_INT(destroyed(all[i]), 1);
        CHECK_EQ_INT(all[i]->called_after_destroy, 0);
    }
    fbs_task_free(t);
    fbs_storage_free(s);
    free(path);
}

TEST_OFFLINE(observe_full_takes_user_data_even_when_it_fails) {
    owned o = {0};
    CHECK_CODE(fbs_task_observe_full(NULL, FBS_TASK_STATUS_SUCCESS, on_event, &o, destroy_owned, NULL),
               FBS_ERR_INVALID_ARGUMENT);
    CHECK_EQ_INT(destroyed(&o), 1);
    /* NULL destroy: nothing to call, and the plain call is unchanged. */
    CHECK_CODE(fbs_task_observe_full(NULL, FBS_TASK_STATUS_SUCCESS, on_event, &o, NULL, NULL), FBS_ERR_INVALID_ARGUMENT);
    CHECK_EQ_INT(destroyed(&o), 1);
}

/* A callback that stays running until told, so that a removal from another thread meets it. */
typedef struct blocking {
    owned o;
    int entered, release;
} blocking;

static void blocking_event(const fbs_snapshot *snapshot, void *user_data) {
    (void)snapshot;
    blocking *b = user_data;
    pthread_mutex_lock(&owned_lock);
    b->o.calls++;
    b->o.running = 1;
    b->entered = 1;
    pthread_cond_broadcast(&owned_changed);
    while (!b->release) pthread_cond_wait(&owned_changed, &owned_lock);
    b->o.running = 0;
    pthread_mutex_unlock(&owned_lock);
}

typedef struct removal {
    fbs_task *task;
    fbs_observer_handle handle;
    owned *o;
    int destroyed_when_returned;
} removal;

static void *remove_in_thread(void *arg) {
    removal *r = arg;
    fbs_task_remove_observer(r->task, r->handle);
    r->destroyed_when_returned = destroyed(r->o);
    return NULL;
}

TEST(removing_a_running_observer_destroys_it_after_it_returns) {
    fbs_storage *s = new_storage();
    char *path = unique_path("ergonomics/running");
    fbs_task *t = slow_put_data(s, path, 4 * CHUNK, 72);
    blocking b = {0};
    fbs_observer_handle h = 0;
    REQUIRE_OK(fbs_task_observe_full(t, FBS_TASK_STATUS_PROGRESS, blocking_event, &b, destroy_owned, &h));
    pthread_mutex_lock(&owned_lock);
    while (!b.entered) pthread_cond_wait(&owned_changed, &owned_lock);
    pthread_mutex_unlock(&owned_lock);

    removal r = {t, h, &b.o, -1};
    pthread_t remover;
    REQUIRE(pthread_create(&remover, NULL, remove_in_thread, &r) == 0);
    pthread_mutex_lock(&owned_lock);
    b.release = 1;
    pthread_cond_broadcast(&owned_changed);
    pthread_mutex_unlock(&owned_lock);
    pthread_join(remover, NULL);
    CHECK_EQ_INT(r.destroyed_when_returned, 1);
    CHECK_EQ_INT(b.o.inside_callback_at_destroy, 0);   /* never while its callback ran */
    CHECK_CODE(fbs_task_wait(t, 60000), FBS_OK);
    CHECK_EQ_INT(destroyed(&b.o), 1);
    fbs_task_free(t);
    fbs_storage_free(s);
    free(path);
}

TEST(storage_free_destroys_the_observers_of_its_tasks) {
    fbs_storage *s = new_storage();
    char *path = unique_path("ergonomics/free");
    fbs_task *t = slow_put_data(s, path, 8 * CHUNK, 73);
    owned failure = {0}, resume = {0};
    REQUIRE_OK(fbs_task_observe_full(t, FBS_TASK_STATUS_FAILURE, on_event, &failure, destroy_owned, NULL));
    REQUIRE_OK(fbs_task_observe_full(t, FBS_TASK_STATUS_RESUME, on_event, &resume, destroy_owned, NULL));
    fbs_task_free(t);   /* the task goes on: its observers stay */
    CHECK_EQ_INT(destroyed(&failure) + destroyed(&resume), 0);
    fbs_storage_free(s);
    CHECK_EQ_INT(failure.calls, 1);   /* cancelled */
    CHECK_EQ_INT(destroyed(&failure), 1);
    CHECK_EQ_INT(destroyed(&resume), 1);
    emu_clear(EMU, "faults");
    free(path);
}

static const char *provide(int force_refresh, void *user_data) {
    (void)force_refresh;
    owned *o = user_data;
    pthread_mutex_lock(&owned_lock);
    o->calls++;
    if (o->destroyed) o->called_after_destroy++;
    pthread_mutex_unlock(&owned_lock);
    return "owner";
}

TEST(token_provider_full_destroys_on_replacement_and_storage_free) {
    fbs_storage *s = new_storage();
    owned first = {0}, second = {0}, third = {0}, unused = {0};
    REQUIRE_OK(fbs_storage_set_auth_token_provider_full(s, provide, &first, destroy_owned));
    fbs_reference *r = new_ref(s, "ergonomics/provider");
    CHECK_EQ_INT(upload_bytes(s, "ergonomics/provider", "p", 1), FBS_OK);
    CHECK(first.calls >= 1);
    REQUIRE_OK(fbs_storage_set_auth_token_provider_full(s, provide, &second, destroy_owned));
    CHECK_EQ_INT(destroyed(&first), 1);   /* replaced: before the call returned */
    REQUIRE_OK(fbs_storage_set_auth_token(s, "owner"));
    CHECK_EQ_INT(destroyed(&second), 1);
    REQUIRE_OK(fbs_storage_set_auth_token_provider_full(s, NULL, &unused, destroy_owned));
    CHECK_EQ_INT(destroyed(&unused), 1);   /* no provider keeps it */
    REQUIRE_OK(fbs_storage_set_auth_token_provider_full(s, provide, &third, destroy_owned));
    fbs_metadata *m = NULL;
    REQUIRE_OK(fbs_reference_get_metadata(r, &m));
    CHECK(third.calls >= 1);
    CHECK_EQ_INT(destroyed(&third), 0);
    fbs_storage_free(s);   /* the reference still holds the storage object: the provider goes anyway */
    CHECK_EQ_INT(destroyed(&third), 1);
    owned *all[] = {&first, &second, &third, &unused};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) {
        CHECK_EQ_INT(destroyed(all[i]), 1);
        CHECK_EQ_INT(all[i]->called_after_destroy, 0);
    }
    owned bad = {0};
    CHECK_CODE(fbs_storage_set_auth_token_provider_full(NULL, provide, &bad, destroy_owned), FBS_ERR_INVALID_ARGUMENT);
    CHECK_EQ_INT(destroyed(&bad), 1);
    fbs_metadata_free(m);
    fbs_reference_free(r);
}

/* Copies the lent metadata of the SUCCESS snapshot; its destroy tells the test it is done. */
typedef struct metadata_copy {
    owned o;
    fbs_metadata *copy;
} metadata_copy;

static void copy_success_metadata(const fbs_snapshot *snapshot, void *user_data) {
    metadata_copy *c = user_data;
    fbs_metadata_copy(fbs_snapshot_metadata(snapshot), &c->copy);
}

TEST(metadata_copy_of_an_owned_and_of_a_lent_metadata) {
    fbs_metadata *m = NULL;
    REQUIRE_OK(fbs_metadata_new(&m));
    REQUIRE_OK(fbs_metadata_set_content_type(m, "text/plain"));
    REQUIRE_OK(fbs_metadata_set_content_language(m, NULL));   /* marked for deletion */
    REQUIRE_OK(fbs_metadata_set_custom(m, "kept", "1"));
    REQUIRE_OK(fbs_metadata_set_custom(m, "gone", NULL));
    fbs_metadata *copy = NULL;
    REQUIRE_OK(fbs_metadata_copy(m, &copy));
    REQUIRE_OK(fbs_metadata_set_content_type(m, "image/png"));   /* the copy is independent */
    REQUIRE_OK(fbs_metadata_remove_custom(m, "kept"));
    fbs_metadata_free(m);
    CHECK_STR(fbs_metadata_content_type(copy), "text/plain");
    CHECK_STR(fbs_metadata_custom(copy, "kept"), "1");
    CHECK_EQ_INT(fbs_metadata_custom_count(copy), 2);   /* "gone" still marked for deletion */

    /* An update with the copy sends what the original would: the deletion marks included. */
    fbs_storage *s = new_storage();
    char *path = unique_path("ergonomics/copy");
    fbs_reference *r = new_ref(s, path);
    fbs_metadata *initial = NULL;
    REQUIRE_OK(fbs_metadata_new(&initial));
    REQUIRE_OK(fbs_metadata_set_content_language(initial, "en"));
    REQUIRE_OK(fbs_metadata_set_custom(initial, "gone", "x"));
    fbs_task *t = NULL;
    metadata_copy from_snapshot = {0};
    REQUIRE_OK(fbs_reference_put_data(r, "abc", 3, initial, &t));
    REQUIRE_OK(fbs_task_observe_full(t, FBS_TASK_STATUS_SUCCESS, copy_success_metadata, &from_snapshot,
                                     destroy_owned, NULL));   /* o is its first member */
    CHECK_CODE(fbs_task_wait(t, 30000), FBS_OK);
    REQUIRE(wait_destroyed(&from_snapshot.o, 10000));   /* the observer ran, and is gone */
    fbs_task_free(t);
    fbs_metadata *lent_copy = from_snapshot.copy;
    REQUIRE(lent_copy != NULL);
    CHECK_EQ_INT(fbs_metadata_size(lent_copy), 3);
    CHECK(fbs_metadata_generation(lent_copy) > 0);
    CHECK_STR(fbs_metadata_content_language(lent_copy), "en");
    CHECK_STR(fbs_metadata_full_path(lent_copy), path);
    CHECK_CODE(fbs_metadata_set_content_type(lent_copy, "text/csv"), FBS_OK);   /* writable, unlike the lent one */

    fbs_metadata *updated = NULL;
    REQUIRE_OK(fbs_reference_update_metadata(r, copy, &updated));
    CHECK_STR(fbs_metadata_content_type(updated), "text/plain");
    CHECK(fbs_metadata_content_language(updated) == NULL);
    CHECK(fbs_metadata_custom(updated, "gone") == NULL);
    CHECK_STR(fbs_metadata_custom(updated, "kept"), "1");

    fbs_metadata *bad = NULL;
    CHECK_CODE(fbs_metadata_copy(NULL, &bad), FBS_ERR_INVALID_ARGUMENT);
    CHECK(bad == NULL);
    CHECK_CODE(fbs_metadata_copy(copy, NULL), FBS_ERR_INVALID_ARGUMENT);
    fbs_metadata_free(updated);
    fbs_metadata_free(lent_copy);
    fbs_metadata_free(initial);
    fbs_metadata_free(copy);
    fbs_reference_free(r);
    fbs_storage_free(s);
    free(path);
}

static void *message_in_thread(void *arg) {
    (void)arg;
    return strdup(fbs_last_error_message());
}

static void *fail_in_thread(void *arg) {
    (void)arg;
    fbs_storage *s = NULL;
    fbs_storage_new("gs://bucket/with/a/path", &s);
    return strdup(fbs_last_error_message());
}

TEST_OFFLINE(last_error_lives_until_the_next_failing_call_on_its_thread) {
    pthread_t fresh;
    REQUIRE(pthread_create(&fresh, NULL, message_in_thread, NULL) == 0);
    char *fresh_message = NULL;
    pthread_join(fresh, (void **)&fresh_message);
    CHECK_STR(fresh_message, "");   /* none yet on a new thread */
    free(fresh_message);

    fbs_storage *s = NULL;
    CHECK_CODE(fbs_storage_new(NULL, &s), FBS_ERR_INVALID_ARGUMENT);
    const char *message = fbs_last_error_message();
    char *text = strdup(message);
    REQUIRE(text[0] != '\0');

    /* Successful calls leave it, pointer and text. */
    fbs_metadata *m = NULL;
    REQUIRE_OK(fbs_metadata_new(&m));
    REQUIRE_OK(fbs_metadata_set_content_type(m, "text/plain"));
    CHECK(fbs_version()[0] != '\0');
    CHECK(fbs_last_error_message() == message);
    CHECK_STR(message, text);

    /* Another thread's failure is its own. */
    pthread_t other;
    REQUIRE(pthread_create(&other, NULL, fail_in_thread, NULL) == 0);
    char *other_message = NULL;
    pthread_join(other, (void **)&other_message);
    CHECK(other_message && other_message[0] && strcmp(other_message, text) != 0);
    CHECK(fbs_last_error_message() == message);
    CHECK_STR(message, text);

    /* The next failing call on this thread replaces it. */
    CHECK_CODE(fbs_metadata_set_custom(m, NULL, "v"), FBS_ERR_INVALID_ARGUMENT);
    CHECK(strcmp(fbs_last_error_message(), text) != 0);
    fbs_metadata_free(m);
    free(other_message);
    free(text);
}

/* Starts a slow resumable put_file and returns it once `bytes` went out, with its session. */
static fbs_task *upload_with_session(fbs_storage *s, const char *file, const char *path, char **session) {
    REQUIRE_OK(fbs_storage_set_upload_chunk_size(s, CHUNK));
    emu_fault_delay(EMU, (fault_match){NULL, "upload", NULL, NULL, FOREVER}, 50);
    fbs_reference *r = new_ref(s, path);
    fbs_task *t = NULL;
    REQUIRE_OK(fbs_reference_put_file(r, file, NULL, &t));
    fbs_reference_free(r);
    REQUIRE(wait_for_bytes(t, 2 * CHUNK, 20000));
    REQUIRE_OK(fbs_task_upload_session(t, session));
    REQUIRE(*session != NULL);
    return t;
}

/* Waits until the emulator logged a cancel command; 1 if it did. */
static int wait_for_cancel_command(int timeout_ms) {
    for (double until = now_s() + timeout_ms / 1000.0; now_s() < until; sleep_ms(10)) {
        reqlog log;
        reqlog_fetch(EMU, &log);
        size_t cancels = reqlog_count(&log, NULL, NULL, "cancel");
        reqlog_free(&log);
        if (cancels == 1) return 1;
    }
    return 0;
}

/* Resumes with session in a new storage and checks the outcome; returns how many sessions it
 * started (0: it went on with the session). */
static size_t resume_elsewhere(const char *file, const char *path, const char *session, int outcome,
                               const unsigned char *bytes, size_t n) {
    emu_clear(EMU, "faults");
    emu_wait_idle(EMU, 10000);
    emu_clear(EMU, "requests");
    fbs_storage *s = new_storage();
    fbs_reference *r = new_ref(s, path);
    fbs_task *t = NULL;
    REQUIRE_OK(fbs_reference_put_file_resuming(r, file, session, NULL, &t));
    CHECK_CODE(fbs_task_wait(t, 60000), outcome);
    size_t got_n = 0;
    unsigned char *got = emu_fetch_object(EMU, path, &got_n);
    if (outcome == FBS_OK) CHECK(got && bytes_equal(got, got_n, bytes, n));
    else CHECK(got == NULL && strstr(fbs_last_error_message(), "cancelled the upload session"));
    reqlog log;
    reqlog_fetch(EMU, &log);
    size_t starts = reqlog_count(&log, "POST", NULL, "start");
    reqlog_free(&log);
    free(got);
    fbs_task_free(t);
    fbs_reference_free(r);
    fbs_storage_free(s);
    return starts;
}

TEST(storage_free_keeps_the_upload_session_and_task_cancel_ends_it) {
    const size_t n = 2 * 1024 * KIB;
    unsigned char *bytes = random_bytes(n, 74);
    char *file = temp_file_with(bytes, n, ".bin");
    char *kept_path = unique_path("ergonomics/kept"), *ended_path = unique_path("ergonomics/ended");
    char *kept = NULL, *ended = NULL;

    fbs_storage *s = new_storage();
    fbs_task *t = upload_with_session(s, file, kept_path, &kept);
    emu_clear(EMU, "requests");
    fbs_storage_free(s);
    emu_wait_idle(EMU, 10000);
    reqlog log;
    reqlog_fetch(EMU, &log);
    CHECK_EQ_INT(reqlog_count(&log, NULL, NULL, "cancel"), 0);
    reqlog_free(&log);
    CHECK_EQ_INT(resume_elsewhere(file, kept_path, kept, FBS_OK, bytes, n), 0);   /* the same session goes on */
    fbs_task_free(t);

    s = new_storage();
    t = upload_with_session(s, file, ended_path, &ended);
    emu_clear(EMU, "requests");
    REQUIRE_OK(fbs_task_cancel(t));
    CHECK_CODE(fbs_task_wait(t, 30000), FBS_ERR_CANCELLED);
    CHECK(wait_for_cancel_command(10000));   /* sent after the task ended, without waiting for it */
    fbs_task_free(t);
    fbs_storage_free(s);
    CHECK_EQ_INT(resume_elsewhere(file, ended_path, ended, FBS_ERR_UNKNOWN, bytes, n), 0);   /* nothing to resume */

    free(kept);
    free(ended);
    free(kept_path);
    free(ended_path);
    free(file);
    free(bytes);
}

/* An asynchronous provider that keeps the request it is given, to be answered by the test. */
typedef struct held_request {
    owned o;
    fbs_token_request *request;
} held_request;

static void hold_request(int force_refresh, fbs_token_request *request, void *user_data) {
    (void)force_refresh;
    held_request *h = user_data;
    pthread_mutex_lock(&owned_lock);
    h->o.calls++;
    if (h->o.destroyed) h->o.called_after_destroy++;
    h->request = request;
    pthread_cond_broadcast(&owned_changed);
    pthread_mutex_unlock(&owned_lock);
}

static void *put_in_thread(void *arg) {
    fbs_storage *s = arg;
    intptr_t code = upload_bytes(s, "ergonomics/async-provider", "a", 1);
    return (void *)code;
}

TEST(async_token_provider_full_destroys_after_its_last_answer) {
    fbs_storage *s = new_storage();
    held_request h = {0};
    REQUIRE_OK(fbs_storage_set_auth_token_provider_async_full(s, hold_request, &h, destroy_owned));
    pthread_t uploader;
    REQUIRE(pthread_create(&uploader, NULL, put_in_thread, s) == 0);
    pthread_mutex_lock(&owned_lock);
    while (!h.request) pthread_cond_wait(&owned_changed, &owned_lock);
    pthread_mutex_unlock(&owned_lock);
    /* Replaced while its request is pending: user_data stays until that request is answered. */
    REQUIRE_OK(fbs_storage_set_auth_token(s, "owner"));
    CHECK_EQ_INT(destroyed(&h.o), 0);
    REQUIRE_OK(fbs_token_request_complete(h.request, "owner"));
    void *code = NULL;
    pthread_join(uploader, &code);
    CHECK_EQ_INT((int)(intptr_t)code, FBS_OK);
    CHECK(wait_destroyed(&h.o, 10000));   /* once the request that asked it is done with it */
    CHECK_EQ_INT(destroyed(&h.o), 1);
    CHECK_EQ_INT(h.o.called_after_destroy, 0);

    owned unused = {0}, freed = {0}, bad = {0};
    REQUIRE_OK(fbs_storage_set_auth_token_provider_async_full(s, NULL, &unused, destroy_owned));
    CHECK_EQ_INT(destroyed(&unused), 1);   /* no provider keeps it */
    REQUIRE_OK(fbs_storage_set_auth_token_provider_async_full(s, hold_request, &freed, destroy_owned));
    CHECK_EQ_INT(destroyed(&freed), 0);
    fbs_storage_free(s);   /* never asked: the provider goes with the storage */
    CHECK_EQ_INT(destroyed(&freed), 1);
    CHECK_CODE(fbs_storage_set_auth_token_provider_async_full(NULL, hold_request, &bad, destroy_owned),
               FBS_ERR_INVALID_ARGUMENT);
    CHECK_EQ_INT(destroyed(&bad), 1);
}
