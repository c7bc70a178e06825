/* test_app_check.c — App Check (fbstorage/app_check.h) against emulators of their own that
 * enforce it (--app-check enforce, tokens living 3 s so that they expire during a test) or
 * monitor it: the debug provider, a custom provider answering from another thread, a minted
 * token, limited-use tokens, renewal across expiry while an upload runs, each refusal with its
 * code, monitor mode's verdicts, and tokens kept out of log lines and messages. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "events.h"
#include "json.h"
#include "reqlog.h"

#define PROJECT "fbs-test"
#define APP_ID "1:12345:web:fbstest"
#define DEBUG_SECRET "fbs-ci-debug-secret-1"
#define TOKEN_TTL "3"
#define TOKEN_TTL_S 3

static emulator enforcing, monitoring;

/* An emulator of the current flavor with App Check in `mode` (started once per test process). */
static const emulator *app_check_emulator(const char *mode) {
    emulator *e = strcmp(mode, "enforce") == 0 ? &enforcing : &monitoring;
    if (e->pid) return e;
    const char *args[] = {"--project", PROJECT, "--app-check", mode, "--app-check-debug-token", DEBUG_SECRET,
                          "--app-check-token-ttl", TOKEN_TTL, NULL};
    REQUIRE(emulator_start(e, EMU->flavor, "127.0.0.1", args) == 0);
    return e;
}

static fbs_storage *storage_on(const emulator *e) {
    fbs_storage *s = NULL;
    REQUIRE_OK(fbs_storage_new(BUCKET, &s));
    REQUIRE_OK(fbs_storage_use_emulator(s, e->host, e->port));
    REQUIRE_OK(fbs_storage_set_max_operation_retry_time(s, 10));
    REQUIRE_OK(fbs_storage_set_max_upload_retry_time(s, 10));
    return s;
}

static fbs_app_check *app_check_on(const emulator *e) {
    fbs_app_check *ac = NULL;
    REQUIRE_OK(fbs_app_check_new(PROJECT, APP_ID, NULL, &ac));
    REQUIRE_OK(fbs_app_check_use_emulator(ac, e->host, e->port));
    return ac;
}

/* A storage on e whose App Check has the debug provider (the storage keeps the App Check). */
static fbs_storage *debug_storage_on(const emulator *e) {
    fbs_app_check *ac = app_check_on(e);
    REQUIRE_OK(fbs_app_check_set_debug_provider(ac, DEBUG_SECRET));
    fbs_storage *s = storage_on(e);
    REQUIRE_OK(fbs_storage_use_app_check(s, ac));
    fbs_app_check_free(ac);
    return s;
}

/* Uploads n bytes to path and reads them back; the first failing code, or FBS_OK. */
static int round_trip(fbs_storage *s, const char *path, size_t n) {
    unsigned char *bytes = random_bytes(n, (unsigned)n);
    int rc = upload_bytes(s, path, bytes, n);
    if (rc == FBS_OK) {
        fbs_reference *r = new_ref(s, path);
        void *back = NULL;
        size_t length = 0;
        rc = fbs_reference_get_data(r, (int64_t)n + 1, &back, &length);
        if (rc == FBS_OK && !bytes_equal(bytes, n, back, length)) rc = FBS_ERR_INTERNAL;
        fbs_data_free(back);
        fbs_reference_free(r);
    }
    free(bytes);
    return rc;
}

/* v0 requests of the log whose App Check verdict is `verdict`. */
static size_t with_verdict(const reqlog *log, const char *verdict) {
    size_t n = 0;
    for (size_t i = 0; i < log->count; i++)
        if (strncmp(log->items[i].url, "/v0/", 4) == 0 && str_equal(log->items[i].app_check, verdict)) n++;
    return n;
}

TEST(app_check_debug_provider_uploads_and_downloads) {
    const emulator *e = app_check_emulator("enforce");
    emu_clear(e, "requests");
    fbs_storage *s = debug_storage_on(e);
    char *path = unique_path("ac-debug");
    CHECK_CODE(round_trip(s, path, 1000), FBS_OK);
    /* A resumable upload: its chunks carry the token too. */
    REQUIRE_OK(fbs_storage_set_upload_chunk_size(s, 256 * 1024));
    CHECK_CODE(round_trip(s, path, 600 * 1024), FBS_OK);
    emu_wait_idle(e, 5000);
    reqlog log;
    reqlog_fetch(e, &log);
    CHECK(with_verdict(&log, "valid") >= 6);
    CHECK_EQ_INT(with_verdict(&log, "missing"), 0);
    /* (A token may expire on its way under a slow run, valgrind's: the request is then sent
     * once more with a fresh one; the renewal test below bounds that.) */
    CHECK(reqlog_count(&log, "POST", ":exchangeDebugToken", NULL) >= 1);
    reqlog_free(&log);
    fbs_storage_free(s);
    free(path);
}

/* Decodes a JWT's payload (base64url) into a NUL-terminated string; caller frees. */
static char *jwt_payload(const char *token) {
    const char *start = strchr(token, '.'), *end = start ? strchr(start + 1, '.') : NULL;
    if (!end) return NULL;
    start++;
    size_t n = (size_t)(end - start);
    char *out = calloc(n + 1, 1);
    unsigned bits = 0, value = 0;
    size_t length = 0;
    for (size_t i = 0; i < n; i++) {
        char c = start[i];
        int v = c >= 'A' && c <= 'Z' ? c - 'A' : c >= 'a' && c <= 'z' ? c - 'a' + 26 : c >= '0' && c <= '9' ? c - '0' + 52
              : c == '-' ? 62 : c == '_' ? 63 : -1;
        if (v < 0) { free(out); return NULL; }
        value = (value << 6) | (unsigned)v;
        bits += 6;
        if (bits >= 8) { bits -= 8; out[length++] = (char)((value >> bits) & 0xFF); }
    }
    return out;
}

typedef struct token_answer {
    pthread_mutex_t lock;
    pthread_cond_t done;
    int answered, status, on_caller_thread;
    char *token;
    int64_t expires;
} token_answer;

static void take_token(int status, const char *token, int64_t expire_time_ms, void *user_data) {
    token_answer *a = user_data;
    pthread_mutex_lock(&a->lock);
    a->status = status;
    a->token = token ? strdup(token) : NULL;
    a->expires = expire_time_ms;
    a->on_caller_thread = pthread_equal(pthread_self(), main_thread);
    a->answered = 1;
    pthread_cond_signal(&a->done);
    pthread_mutex_unlock(&a->lock);
}

/* Waits (10 s at most) for take_token; 1 when it ran. */
static int wait_for_answer(token_answer *a) {
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 10;
    pthread_mutex_lock(&a->lock);
    while (!a->answered && pthread_cond_timedwait(&a->done, &a->lock, &deadline) == 0) {}
    int answered = a->answered;
    pthread_mutex_unlock(&a->lock);
    return answered;
}

TEST(app_check_async_token_calls) {
    const emulator *e = app_check_emulator("enforce");
    fbs_app_check *ac = app_check_on(e);
    token_answer missing = {.lock = PTHREAD_MUTEX_INITIALIZER, .done = PTHREAD_COND_INITIALIZER};
    REQUIRE_OK(fbs_app_check_get_token_async(ac, 0, take_token, &missing));
    REQUIRE(wait_for_answer(&missing));
    CHECK_EQ_INT(missing.status, FBS_ERR_APP_CHECK_NO_PROVIDER);
    CHECK(missing.token == NULL);
    REQUIRE_OK(fbs_app_check_set_debug_provider(ac, DEBUG_SECRET));
    token_answer got = {.lock = PTHREAD_MUTEX_INITIALIZER, .done = PTHREAD_COND_INITIALIZER};
    REQUIRE_OK(fbs_app_check_get_token_async(ac, 1, take_token, &got));
    REQUIRE(wait_for_answer(&got));
    CHECK_EQ_INT(got.status, FBS_OK);
    CHECK(got.token && strlen(got.token) > 20);
    CHECK(got.expires > ((int64_t)time(NULL) + 1) * 1000 - 1000);
    CHECK(!got.on_caller_thread);
    token_answer limited = {.lock = PTHREAD_MUTEX_INITIALIZER, .done = PTHREAD_COND_INITIALIZER};
    REQUIRE_OK(fbs_app_check_get_limited_use_token_async(ac, take_token, &limited));
    REQUIRE(wait_for_answer(&limited));
    CHECK_EQ_INT(limited.status, FBS_OK);
    char *claims = limited.token ? jwt_payload(limited.token) : NULL;
    CHECK(claims && strstr(claims, "\"jti\""));
    free(claims);
    CHECK_CODE(fbs_app_check_get_token_async(ac, 0, NULL, NULL), FBS_ERR_INVALID_ARGUMENT);
    free(got.token);
    free(limited.token);
    fbs_app_check_free(ac);
}

/* A token listener's record: the tokens it heard, in order, and its destroy callback's calls. */
typedef struct token_log {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int calls, destroyed, on_caller_thread;
    char *tokens[16];
    int64_t expires[16];
} token_log;

#define TOKEN_LOG_INIT {.lock = PTHREAD_MUTEX_INITIALIZER, .changed = PTHREAD_COND_INITIALIZER}

static void record_token(const char *token, int64_t expire_time_ms, void *user_data) {
    token_log *log = user_data;
    pthread_mutex_lock(&log->lock);
    if (log->calls < 16) {
        log->tokens[log->calls] = strdup(token);
        log->expires[log->calls] = expire_time_ms;
    }
    log->calls++;
    log->on_caller_thread |= pthread_equal(pthread_self(), main_thread);
    pthread_cond_broadcast(&log->changed);
    pthread_mutex_unlock(&log->lock);
}

static void token_log_destroyed(void *user_data) {
    token_log *log = user_data;
    pthread_mutex_lock(&log->lock);
    log->destroyed++;
    pthread_mutex_unlock(&log->lock);
}

/* Waits (10 s at most) until the listener ran `calls` times; 1 when it did. */
static int token_log_calls_wait(token_log *log, int calls) {
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 10;
    pthread_mutex_lock(&log->lock);
    while (log->calls < calls && pthread_cond_timedwait(&log->changed, &log->lock, &deadline) == 0) {}
    int reached = log->calls >= calls;
    pthread_mutex_unlock(&log->lock);
    return reached;
}

static int token_log_calls(token_log *log) {
    pthread_mutex_lock(&log->lock);
    int calls = log->calls;
    pthread_mutex_unlock(&log->lock);
    return calls;
}

static void token_log_free(token_log *log) {
    for (int i = 0; i < log->calls && i < 16; i++) free(log->tokens[i]);
}

TEST(app_check_token_listeners_hear_each_new_token) {
    const emulator *e = app_check_emulator("enforce");
    fbs_app_check *ac = app_check_on(e);
    REQUIRE_OK(fbs_app_check_set_debug_provider(ac, DEBUG_SECRET));
    token_log heard = TOKEN_LOG_INIT;
    fbs_listener_handle handle = 0;
    REQUIRE_OK(fbs_app_check_add_token_listener(ac, record_token, &heard, token_log_destroyed, &handle));
    CHECK(handle != 0);
    token_log later = TOKEN_LOG_INIT;   /* outlives `heard`'s removal */
    fbs_listener_handle later_handle = 0;
    REQUIRE_OK(fbs_app_check_add_token_listener(ac, record_token, &later, token_log_destroyed, &later_handle));
    CHECK(later_handle != handle && later_handle != 0);

    /* The first renewal's token, with its expiry; then a limited-use token, which it never hears:
     * the forced renewal's token comes right after the first (the emulator's tokens differ only
     * when their second does, so the two may be equal strings: each renewal is heard). */
    char *first = NULL, *limited = NULL, *forced = NULL;
    int64_t expires = 0;
    REQUIRE_OK(fbs_app_check_get_token(ac, 0, &first, &expires));
    REQUIRE(token_log_calls_wait(&heard, 1));
    REQUIRE_OK(fbs_app_check_get_limited_use_token(ac, &limited, NULL));
    REQUIRE_OK(fbs_app_check_get_token(ac, 1, &forced, NULL));
    CHECK(!str_equal(limited, first) && !str_equal(limited, forced));
    REQUIRE(token_log_calls_wait(&heard, 2));
    pthread_mutex_lock(&heard.lock);
    CHECK_EQ_INT(heard.calls, 2);
    CHECK_STR(heard.tokens[0], first);
    CHECK(heard.expires[0] == expires);
    CHECK_STR(heard.tokens[1], forced);
    CHECK(!heard.on_caller_thread);
    pthread_mutex_unlock(&heard.lock);

    /* Removed: destroy has run once when removal returns, and it hears nothing more, while the
     * other listener hears the next renewal. */
    CHECK_CODE(fbs_app_check_remove_token_listener(ac, handle), FBS_OK);
    CHECK_EQ_INT(heard.destroyed, 1);
    CHECK_CODE(fbs_app_check_remove_token_listener(ac, handle), FBS_ERR_INVALID_ARGUMENT);
    char *third = NULL;
    REQUIRE_OK(fbs_app_check_get_token(ac, 1, &third, NULL));
    REQUIRE(token_log_calls_wait(&later, 3));
    CHECK_STR(later.tokens[2], third);
    CHECK_EQ_INT(token_log_calls(&heard), 2);
    CHECK_EQ_INT(heard.destroyed, 1);

    /* A minted token is heard at once, and a listener added while it is kept hears it at
     * registration. Freeing the App Check removes both: each destroy ran once when it returns. */
    const char *minted = "minted-elsewhere-token";
    int64_t minted_expiry = ((int64_t)time(NULL) + 600) * 1000;
    REQUIRE_OK(fbs_app_check_set_token(ac, minted, minted_expiry));
    REQUIRE(token_log_calls_wait(&later, 4));
    CHECK_STR(later.tokens[3], minted);
    token_log registered = TOKEN_LOG_INIT;
    fbs_listener_handle registered_handle = 0;
    REQUIRE_OK(fbs_app_check_add_token_listener(ac, record_token, &registered, token_log_destroyed, &registered_handle));
    REQUIRE(token_log_calls_wait(&registered, 1));
    CHECK_STR(registered.tokens[0], minted);
    CHECK(registered.expires[0] == minted_expiry);
    fbs_app_check_free(ac);
    CHECK_EQ_INT(later.destroyed, 1);
    CHECK_EQ_INT(registered.destroyed, 1);
    CHECK_EQ_INT(token_log_calls(&registered), 1);
    free(first);
    free(limited);
    free(forced);
    free(third);
    token_log_free(&heard);
    token_log_free(&later);
    token_log_free(&registered);
}

/* A custom provider that keeps its request for the test to answer. */
typedef struct held_request {
    pthread_mutex_t lock;
    pthread_cond_t asked;
    fbs_app_check_request *request;
} held_request;

static void hold_request(int limited_use, fbs_app_check_request *request, void *user_data) {
    (void)limited_use;
    held_request *held = user_data;
    pthread_mutex_lock(&held->lock);
    held->request = request;
    pthread_cond_broadcast(&held->asked);
    pthread_mutex_unlock(&held->lock);
}

TEST(app_check_token_listeners_never_hear_a_replaced_providers_answer) {
    const emulator *e = app_check_emulator("enforce");
    fbs_app_check *ac = app_check_on(e);
    held_request held = {.lock = PTHREAD_MUTEX_INITIALIZER, .asked = PTHREAD_COND_INITIALIZER};
    REQUIRE_OK(fbs_app_check_set_custom_provider(ac, hold_request, &held));
    token_log heard = TOKEN_LOG_INIT;
    fbs_listener_handle handle = 0;
    REQUIRE_OK(fbs_app_check_add_token_listener(ac, record_token, &heard, NULL, &handle));
    token_answer renewal = {.lock = PTHREAD_MUTEX_INITIALIZER, .done = PTHREAD_COND_INITIALIZER};
    REQUIRE_OK(fbs_app_check_get_token_async(ac, 0, take_token, &renewal));
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 10;
    pthread_mutex_lock(&held.lock);
    while (!held.request && pthread_cond_timedwait(&held.asked, &held.lock, &deadline) == 0) {}
    fbs_app_check_request *request = held.request;
    pthread_mutex_unlock(&held.lock);
    REQUIRE(request != NULL);

    /* The provider is replaced while its renewal runs: its answer reaches the waiting call,
     * but is not kept, so listeners hear only the new provider's token (twice: set, renewed). */
    const char *minted = "minted-after-replacement";
    int64_t expiry = ((int64_t)time(NULL) + 600) * 1000;
    REQUIRE_OK(fbs_app_check_set_token(ac, minted, expiry));
    REQUIRE_OK(fbs_app_check_request_complete(request, "answer-of-the-replaced-provider", expiry));
    REQUIRE(wait_for_answer(&renewal));
    CHECK_EQ_INT(renewal.status, FBS_OK);
    char *renewed = NULL;
    REQUIRE_OK(fbs_app_check_get_token(ac, 1, &renewed, NULL));
    CHECK_STR(renewed, minted);
    REQUIRE(token_log_calls_wait(&heard, 2));
    CHECK_EQ_INT(token_log_calls(&heard), 2);
    CHECK_STR(heard.tokens[0], minted);
    CHECK_STR(heard.tokens[1], minted);
    CHECK_CODE(fbs_app_check_remove_token_listener(ac, handle), FBS_OK);
    free(renewed);
    free(renewal.token);
    token_log_free(&heard);
    fbs_app_check_free(ac);
}

TEST(app_check_refusals_have_their_codes) {
    const emulator *e = app_check_emulator("enforce");
    fbs_storage *s = storage_on(e);
    char *path = unique_path("ac-refused");
    /* No App Check at all, then one without a provider: no token sent. */
    CHECK_CODE(upload_bytes(s, path, "x", 1), FBS_ERR_APP_CHECK_TOKEN_MISSING);
    CHECK_EQ_INT(fbs_last_error_http_status(), 401);
    fbs_app_check *ac = app_check_on(e);
    REQUIRE_OK(fbs_storage_use_app_check(s, ac));
    emu_clear(e, "requests");
    CHECK_CODE(upload_bytes(s, path, "x", 1), FBS_ERR_APP_CHECK_TOKEN_MISSING);
    emu_wait_idle(e, 5000);
    reqlog log;
    reqlog_fetch(e, &log);
    CHECK_EQ_INT(with_verdict(&log, "missing"), 1);   /* nothing sent, nothing to retry with */
    reqlog_free(&log);
    char *token = NULL;
    CHECK_CODE(fbs_app_check_get_token(ac, 0, &token, NULL), FBS_ERR_APP_CHECK_NO_PROVIDER);
    CHECK(token == NULL);
    /* A debug secret the emulator does not know: the exchange refuses it. */
    REQUIRE_OK(fbs_app_check_set_debug_provider(ac, "not-registered"));
    CHECK_CODE(upload_bytes(s, path, "x", 1), FBS_ERR_APP_CHECK_ATTESTATION_FAILED);
    CHECK(strstr(fbs_last_error_message(), "not-registered") == NULL);
    /* Another project's token, given as minted: refused, asked again once, refused again. */
    const char *headers[] = {"Content-Type: application/json", NULL};
    const char *ask = "{\"appId\": \"" APP_ID "\", \"ttlSeconds\": 600, \"project\": \"other-project\"}";
    http_response minted = {0};
    char url[256];
    snprintf(url, sizeof url, "%s/_emulator/app-check/tokens", e->base_url);
    REQUIRE(http_request("POST", url, headers, ask, strlen(ask), &minted) == 200);
    json *answer = json_parse((const char *)minted.body);
    REQUIRE(answer && json_str(json_get(answer, "token")));
    const char *foreign = json_str(json_get(answer, "token"));
    REQUIRE_OK(fbs_app_check_set_token(ac, foreign, ((int64_t)time(NULL) + 600) * 1000));
    emu_clear(e, "requests");
    CHECK_CODE(upload_bytes(s, path, "x", 1), FBS_ERR_APP_CHECK_TOKEN_INVALID);
    CHECK(strstr(fbs_last_error_message(), foreign) == NULL);
    emu_wait_idle(e, 5000);
    reqlog_fetch(e, &log);
    CHECK_EQ_INT(with_verdict(&log, "other project"), 2);   /* one retry with a fresh token, no more */
    reqlog_free(&log);
    /* An expiry already past is refused at once. */
    CHECK_CODE(fbs_app_check_set_token(ac, foreign, ((int64_t)time(NULL) - 1) * 1000), FBS_ERR_INVALID_ARGUMENT);
    json_free(answer);
    http_response_free(&minted);
    fbs_app_check_free(ac);
    fbs_storage_free(s);
    free(path);
}

/* The custom provider's "backend": mints a token through the emulator's control API from a
 * thread of its own, then answers the request from that thread. */
typedef struct backend {
    pthread_mutex_t lock;
    const emulator *e;
    int calls, limited_calls, destroyed;
    int fail_next;
} backend;

typedef struct pending {
    backend *b;
    fbs_app_check_request *request;
    int limited_use;
} pending;

static void *mint_and_answer(void *arg) {
    pending *p = arg;
    char url[256], body[256];
    snprintf(url, sizeof url, "%s/_emulator/app-check/tokens", p->b->e->base_url);
    snprintf(body, sizeof body, "{\"appId\": \"" APP_ID "\", \"ttlSeconds\": 60, \"limitedUse\": %s}",
             p->limited_use ? "true" : "false");
    const char *headers[] = {"Content-Type: application/json", NULL};
    http_response r = {0};
    json *answer = NULL;
    pthread_mutex_lock(&p->b->lock);
    int fail = p->b->fail_next;
    p->b->fail_next = 0;
    pthread_mutex_unlock(&p->b->lock);
    if (!fail && http_request("POST", url, headers, body, strlen(body), &r) == 200 &&
        (answer = json_parse((const char *)r.body)) && json_str(json_get(answer, "token")))
        CHECK_CODE(fbs_app_check_request_complete(p->request, json_str(json_get(answer, "token")),
                                                  ((int64_t)time(NULL) + 60) * 1000), FBS_OK);
    else
        CHECK_CODE(fbs_app_check_request_fail(p->request, "the backend said no"), FBS_OK);
    json_free(answer);
    http_response_free(&r);
    free(p);
    return NULL;
}

static void custom_provider(int limited_use, fbs_app_check_request *request, void *user_data) {
    backend *b = user_data;
    pthread_mutex_lock(&b->lock);
    b->calls++;
    b->limited_calls += limited_use;
    pthread_mutex_unlock(&b->lock);
    pending *p = malloc(sizeof *p);
    *p = (pending){b, request, limited_use};
    pthread_t thread;
    REQUIRE(pthread_create(&thread, NULL, mint_and_answer, p) == 0);
    pthread_detach(thread);
}

static void backend_destroyed(void *user_data) {
    backend *b = user_data;
    pthread_mutex_lock(&b->lock);
    b->destroyed++;
    pthread_mutex_unlock(&b->lock);
}

TEST(app_check_custom_provider_answers_from_another_thread) {
    const emulator *e = app_check_emulator("enforce");
    backend b = {.lock = PTHREAD_MUTEX_INITIALIZER, .e = e};
    fbs_app_check *ac = app_check_on(e);
    REQUIRE_OK(fbs_app_check_set_custom_provider_full(ac, custom_provider, &b, backend_destroyed));
    fbs_storage *s = storage_on(e);
    REQUIRE_OK(fbs_storage_use_app_check(s, ac));
    char *path = unique_path("ac-custom");
    CHECK_CODE(round_trip(s, path, 5000), FBS_OK);
    pthread_mutex_lock(&b.lock);
    CHECK_EQ_INT(b.calls, 1);   /* one token served the upload and the download */
    pthread_mutex_unlock(&b.lock);

    /* The token is cached; force_refresh asks anew. */
    char *first = NULL, *again = NULL, *forced = NULL;
    int64_t expires = 0;
    REQUIRE_OK(fbs_app_check_get_token(ac, 0, &first, &expires));
    REQUIRE_OK(fbs_app_check_get_token(ac, 0, &again, NULL));
    CHECK_STR(first, again);
    CHECK(expires > ((int64_t)time(NULL) + 30) * 1000);
    pthread_mutex_lock(&b.lock);
    CHECK_EQ_INT(b.calls, 1);
    pthread_mutex_unlock(&b.lock);
    REQUIRE_OK(fbs_app_check_get_token(ac, 1, &forced, NULL));
    pthread_mutex_lock(&b.lock);
    CHECK_EQ_INT(b.calls, 2);   /* (the same claims in the same second sign to the same token) */
    pthread_mutex_unlock(&b.lock);

    /* Limited use: asked of the provider each time, with limited_use = 1, and not cached. */
    char *limited1 = NULL, *limited2 = NULL;
    REQUIRE_OK(fbs_app_check_get_limited_use_token(ac, &limited1, NULL));
    REQUIRE_OK(fbs_app_check_get_limited_use_token(ac, &limited2, NULL));
    CHECK(!str_equal(limited1, limited2));
    char *claims = jwt_payload(limited1);
    CHECK(claims && strstr(claims, "\"jti\""));
    free(claims);
    pthread_mutex_lock(&b.lock);
    CHECK_EQ_INT(b.limited_calls, 2);
    pthread_mutex_unlock(&b.lock);
    char *cached = NULL;
    REQUIRE_OK(fbs_app_check_get_token(ac, 0, &cached, NULL));
    CHECK_STR(cached, forced);
    pthread_mutex_lock(&b.lock);
    CHECK_EQ_INT(b.calls, 4);   /* two limited-use calls, no more */
    pthread_mutex_unlock(&b.lock);

    /* A provider's failure fails the request with its code and message. */
    pthread_mutex_lock(&b.lock);
    b.fail_next = 1;
    pthread_mutex_unlock(&b.lock);
    char *failed = NULL;
    CHECK_CODE(fbs_app_check_get_token(ac, 1, &failed, NULL), FBS_ERR_APP_CHECK_PROVIDER_FAILED);
    CHECK(strstr(fbs_last_error_message(), "the backend said no") != NULL);

    fbs_string_free(first);
    fbs_string_free(again);
    fbs_string_free(forced);
    fbs_string_free(limited1);
    fbs_string_free(limited2);
    fbs_string_free(cached);
    fbs_app_check_free(ac);
    pthread_mutex_lock(&b.lock);
    CHECK_EQ_INT(b.destroyed, 0);   /* the storage still uses it */
    pthread_mutex_unlock(&b.lock);
    fbs_storage_free(s);
    double deadline = now_s() + 5;
    int destroyed = 0;
    while (!destroyed && now_s() < deadline) {
        pthread_mutex_lock(&b.lock);
        destroyed = b.destroyed;
        pthread_mutex_unlock(&b.lock);
        if (!destroyed) sleep_ms(10);
    }
    CHECK_EQ_INT(destroyed, 1);
    free(path);
}

TEST(app_check_concurrent_requests_share_one_renewal) {
    const emulator *e = app_check_emulator("enforce");
    backend b = {.lock = PTHREAD_MUTEX_INITIALIZER, .e = e};
    fbs_app_check *ac = app_check_on(e);
    REQUIRE_OK(fbs_app_check_set_custom_provider(ac, custom_provider, &b));
    fbs_storage *s = storage_on(e);
    REQUIRE_OK(fbs_storage_use_app_check(s, ac));
    enum { N = 8 };
    fbs_task *tasks[N];
    fbs_reference *refs[N];
    for (int i = 0; i < N; i++) {
        char name[64];
        snprintf(name, sizeof name, "ac-shared-%d-%d", (int)getpid(), i);
        refs[i] = new_ref(s, name);
        REQUIRE_OK(fbs_reference_put_data(refs[i], "shared", 6, NULL, &tasks[i]));
    }
    for (int i = 0; i < N; i++) {
        CHECK_CODE(fbs_task_wait(tasks[i], 30000), FBS_OK);
        fbs_task_free(tasks[i]);
        fbs_reference_free(refs[i]);
    }
    pthread_mutex_lock(&b.lock);
    CHECK_EQ_INT(b.calls, 1);   /* eight requests, one renewal */
    pthread_mutex_unlock(&b.lock);
    fbs_storage_free(s);
    fbs_app_check_free(ac);
}

TEST_EX(app_check_tokens_renew_across_expiry_during_an_upload, TEST_NEEDS_EMULATOR, 90) {
    const emulator *e = app_check_emulator("enforce");
    emu_clear(e, "requests");
    fbs_storage *s = debug_storage_on(e);
    /* 4 MiB in 256 KiB chunks at 512 KiB/s: about 8 s, past two token lifetimes. */
    REQUIRE_OK(fbs_storage_set_upload_chunk_size(s, 256 * 1024));
    REQUIRE_OK(fbs_storage_set_max_upload_speed(s, 512 * 1024));
    char *path = unique_path("ac-renew");
    double started = now_s();
    CHECK_CODE(round_trip(s, path, 4 * 1024 * 1024), FBS_OK);
    CHECK(now_s() - started > 2 * TOKEN_TTL_S);
    emu_wait_idle(e, 5000);
    reqlog log;
    reqlog_fetch(e, &log);
    size_t judged = with_verdict(&log, "valid");
    CHECK(judged >= 17);   /* the start, 16 chunks, the download */
    CHECK_EQ_INT(with_verdict(&log, "expired") + with_verdict(&log, "missing"), 0);
    for (size_t i = 0; i < log.count; i++) CHECK(log.items[i].status != 401);
    CHECK(reqlog_count(&log, "POST", ":exchangeDebugToken", NULL) >= 3);
    if (judged < 17) reqlog_dump(&log);
    reqlog_free(&log);
    fbs_storage_free(s);
    free(path);
}

TEST(app_check_monitor_mode_records_verdicts) {
    const emulator *e = app_check_emulator("monitor");
    emu_clear(e, "requests");
    fbs_storage *s = storage_on(e);
    char *path = unique_path("ac-monitor");
    CHECK_CODE(upload_bytes(s, path, "x", 1), FBS_OK);   /* allowed, recorded as missing */
    emu_wait_idle(e, 5000);
    reqlog log;
    reqlog_fetch(e, &log);
    CHECK_EQ_INT(with_verdict(&log, "missing"), 1);
    CHECK_EQ_INT(with_verdict(&log, "valid"), 0);
    reqlog_free(&log);

    emu_clear(e, "requests");
    fbs_app_check *ac = app_check_on(e);
    REQUIRE_OK(fbs_app_check_set_debug_provider(ac, DEBUG_SECRET));
    REQUIRE_OK(fbs_storage_use_app_check(s, ac));
    CHECK_CODE(upload_bytes(s, path, "y", 1), FBS_OK);
    emu_wait_idle(e, 5000);
    reqlog_fetch(e, &log);
    CHECK_EQ_INT(with_verdict(&log, "valid"), 1);
    CHECK_EQ_INT(with_verdict(&log, "missing"), 0);
    reqlog_free(&log);
    fbs_app_check_free(ac);
    fbs_storage_free(s);
    free(path);
}

typedef struct captured_log {
    pthread_mutex_t lock;
    char *text;
    size_t length;
} captured_log;

static void capture_line(int level, const char *line, void *user_data) {
    (void)level;
    captured_log *c = user_data;
    pthread_mutex_lock(&c->lock);
    size_t n = strlen(line);
    c->text = realloc(c->text, c->length + n + 2);
    memcpy(c->text + c->length, line, n);
    c->length += n;
    c->text[c->length++] = '\n';
    c->text[c->length] = 0;
    pthread_mutex_unlock(&c->lock);
}

TEST(app_check_tokens_stay_out_of_logs) {
    const emulator *e = app_check_emulator("enforce");
    captured_log captured = {.lock = PTHREAD_MUTEX_INITIALIZER};
    REQUIRE_OK(fbs_library_set_log_handler(capture_line, &captured));
    fbs_app_check *ac = app_check_on(e);
    REQUIRE_OK(fbs_app_check_set_debug_provider(ac, DEBUG_SECRET));
    fbs_storage *s = storage_on(e);
    REQUIRE_OK(fbs_storage_use_app_check(s, ac));
    char *path = unique_path("ac-logs");
    CHECK_CODE(round_trip(s, path, 300 * 1024), FBS_OK);
    char *token = NULL;
    REQUIRE_OK(fbs_app_check_get_token(ac, 0, &token, NULL));
    REQUIRE_OK(fbs_library_set_log_handler(NULL, NULL));
    CHECK(captured.length > 0);
    CHECK(strstr(captured.text ? captured.text : "", token) == NULL);
    CHECK(strstr(captured.text ? captured.text : "", DEBUG_SECRET) == NULL);
    CHECK(strstr(captured.text ? captured.text : "", "exchangeDebugToken") != NULL);
    fbs_string_free(token);
    free(captured.text);
    fbs_app_check_free(ac);
    fbs_storage_free(s);
    free(path);
}

/* A listener whose call takes a while, recording whether it is running: removal racing it. */
typedef struct slow_listener {
    pthread_mutex_t lock;
    int running, calls, destroyed;
} slow_listener;

static void slow_call(const char *token, int64_t expire_time_ms, void *user_data) {
    (void)token;
    (void)expire_time_ms;
    slow_listener *l = user_data;
    pthread_mutex_lock(&l->lock);
    l->running = 1;
    pthread_mutex_unlock(&l->lock);
    volatile unsigned spin = 0;
    for (unsigned i = 0; i < 20000; i++) spin += i;   /* work, so that removal often meets a call */
    pthread_mutex_lock(&l->lock);
    l->running = 0;
    l->calls++;
    pthread_mutex_unlock(&l->lock);
}

static void slow_destroyed(void *user_data) {
    slow_listener *l = user_data;
    pthread_mutex_lock(&l->lock);
    l->destroyed++;
    pthread_mutex_unlock(&l->lock);
}

/* Stress: a renewal's notification racing the listener's removal. When removal returns the
 * listener is not running, its destroy ran once, and it is never called afterwards. Minted
 * tokens: each forced renewal asks the provider at once, no network. */
TEST_OFFLINE(app_check_token_listener_removal_races_its_calls) {
    fbs_app_check *ac = NULL;
    REQUIRE_OK(fbs_app_check_new(PROJECT, APP_ID, NULL, &ac));
    REQUIRE_OK(fbs_app_check_set_token(ac, "minted-for-the-race", ((int64_t)time(NULL) + 600) * 1000));
    for (int round = 0; round < 200; round++) {
        slow_listener l = {.lock = PTHREAD_MUTEX_INITIALIZER};
        fbs_listener_handle handle = 0;
        REQUIRE_OK(fbs_app_check_add_token_listener(ac, slow_call, &l, slow_destroyed, &handle));   /* heard at once */
        token_answer renewal = {.lock = PTHREAD_MUTEX_INITIALIZER, .done = PTHREAD_COND_INITIALIZER};
        REQUIRE_OK(fbs_app_check_get_token_async(ac, 1, take_token, &renewal));
        REQUIRE_OK(fbs_app_check_remove_token_listener(ac, handle));
        pthread_mutex_lock(&l.lock);
        int running = l.running, destroyed = l.destroyed, calls = l.calls;
        pthread_mutex_unlock(&l.lock);
        REQUIRE(!running && destroyed == 1);
        /* The renewal's answer comes after its notifications: none reached the removed listener. */
        REQUIRE(wait_for_answer(&renewal));
        CHECK_EQ_INT(renewal.status, FBS_OK);
        free(renewal.token);
        pthread_mutex_lock(&l.lock);
        REQUIRE(l.calls == calls && l.destroyed == 1);
        pthread_mutex_unlock(&l.lock);
    }
    fbs_app_check_free(ac);
}

TEST_OFFLINE(app_check_bad_arguments) {
    fbs_app_check *ac = NULL;
    CHECK_CODE(fbs_app_check_new(NULL, APP_ID, NULL, &ac), FBS_ERR_INVALID_ARGUMENT);
    CHECK_CODE(fbs_app_check_new(PROJECT, "", NULL, &ac), FBS_ERR_INVALID_ARGUMENT);
    CHECK_CODE(fbs_app_check_new(PROJECT, "1:2:web/../x", NULL, &ac), FBS_ERR_INVALID_ARGUMENT);
    CHECK_CODE(fbs_app_check_new(PROJECT, APP_ID, "", &ac), FBS_ERR_INVALID_ARGUMENT);
    CHECK(ac == NULL);
    REQUIRE_OK(fbs_app_check_new(PROJECT, APP_ID, NULL, &ac));
    unsetenv("FIREBASE_APP_CHECK_DEBUG_TOKEN");
    unsetenv("FIRAAppCheckDebugToken");
    unsetenv("AppCheckDebugToken");
    CHECK_CODE(fbs_app_check_set_debug_provider(ac, NULL), FBS_ERR_INVALID_ARGUMENT);
    CHECK(strstr(fbs_last_error_message(), "FIREBASE_APP_CHECK_DEBUG_TOKEN") != NULL);
    setenv("FIRAAppCheckDebugToken", "from-the-apple-name", 1);
    CHECK_CODE(fbs_app_check_set_debug_provider(ac, NULL), FBS_OK);
    unsetenv("FIRAAppCheckDebugToken");
    CHECK_CODE(fbs_app_check_set_debug_provider(ac, "bad\nsecret"), FBS_ERR_INVALID_ARGUMENT);
    CHECK_CODE(fbs_app_check_set_token(ac, "", ((int64_t)time(NULL) + 60) * 1000), FBS_ERR_INVALID_ARGUMENT);
    CHECK_CODE(fbs_app_check_get_token(ac, 0, NULL, NULL), FBS_ERR_INVALID_ARGUMENT);
    CHECK_CODE(fbs_app_check_request_complete(NULL, "t", 0), FBS_ERR_INVALID_ARGUMENT);
    CHECK_CODE(fbs_storage_use_app_check(NULL, ac), FBS_ERR_INVALID_ARGUMENT);
    CHECK_CODE(fbs_app_check_use_emulator(ac, "127.0.0.1", 0), FBS_ERR_INVALID_ARGUMENT);
    /* Token listeners: NULL arguments fail at once with a message, and destroy runs then. */
    token_log refused = TOKEN_LOG_INIT;
    fbs_listener_handle handle = 0;
    CHECK_CODE(fbs_app_check_add_token_listener(NULL, record_token, &refused, token_log_destroyed, &handle),
               FBS_ERR_INVALID_ARGUMENT);
    CHECK(fbs_last_error_message()[0] != 0);
    CHECK_CODE(fbs_app_check_add_token_listener(ac, NULL, &refused, token_log_destroyed, &handle), FBS_ERR_INVALID_ARGUMENT);
    CHECK(strstr(fbs_last_error_message(), "callback") != NULL);
    CHECK_CODE(fbs_app_check_add_token_listener(ac, record_token, &refused, token_log_destroyed, NULL),
               FBS_ERR_INVALID_ARGUMENT);
    CHECK(strstr(fbs_last_error_message(), "out_handle") != NULL);
    CHECK_EQ_INT(refused.destroyed, 3);
    CHECK(handle == 0);
    CHECK_CODE(fbs_app_check_remove_token_listener(NULL, 1), FBS_ERR_INVALID_ARGUMENT);
    CHECK_CODE(fbs_app_check_remove_token_listener(ac, 0), FBS_ERR_INVALID_ARGUMENT);
    CHECK(strstr(fbs_last_error_message(), "handle") != NULL);
    CHECK_CODE(fbs_app_check_add_token_listener(ac, record_token, &refused, NULL, &handle), FBS_OK);   /* destroy may be NULL */
    CHECK_CODE(fbs_app_check_remove_token_listener(ac, handle), FBS_OK);
    CHECK_EQ_INT(refused.calls, 0);
    fbs_storage *s = NULL;
    REQUIRE_OK(fbs_storage_new(BUCKET, &s));
    CHECK_CODE(fbs_storage_use_app_check(s, (fbs_app_check *)s), FBS_ERR_INVALID_ARGUMENT);   /* another type */
    CHECK_CODE(fbs_app_check_set_debug_provider((fbs_app_check *)s, "x"), FBS_ERR_INVALID_ARGUMENT);
    fbs_app_check_free(ac);
    CHECK_CODE(fbs_storage_use_app_check(s, ac), FBS_ERR_INVALID_ARGUMENT);   /* released */
    CHECK_CODE(fbs_app_check_get_token(ac, 0, &(char *){NULL}, NULL), FBS_ERR_INVALID_ARGUMENT);
    CHECK_CODE(fbs_app_check_add_token_listener(ac, record_token, &refused, NULL, &handle), FBS_ERR_INVALID_ARGUMENT);
    CHECK_CODE(fbs_app_check_remove_token_listener(ac, handle), FBS_ERR_INVALID_ARGUMENT);
    fbs_storage_free(s);
    fbs_app_check_free(NULL);
}
