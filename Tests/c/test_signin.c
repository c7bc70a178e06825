/* test_signin.c — fbstorage/auth.h against the bundled emulator's Auth routes (served on its
 * storage port): each sign-in flow, Auth errors, restoring and persisting a session, listeners,
 * a storage using an auth under owner-only rules, refreshes while a token expires mid-upload,
 * a disabled user, and the asynchronous token provider. Each test starts its own emulator with
 * the rules below (both flavors: the flavor under test). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "events.h"
#include "reqlog.h"

static const char *const OWNER_RULES =
    "rules_version = '2';\n"
    "service firebase.storage {\n"
    "  match /b/{bucket}/o {\n"
    "    match /users/{uid}/{file=**} { allow read, write: if request.auth.uid == uid; }\n"
    "    match /admins/{file=**} { allow read, write: if request.auth.token.admin == true; }\n"
    "  }\n"
    "}\n";

static emulator owned;

/* An emulator of the flavor under test with owner-only rules and ID tokens living `lifetime` s. */
static emulator *start_owned(int lifetime) {
    char *file = temp_file_with(OWNER_RULES, strlen(OWNER_RULES), ".rules");
    char seconds[16];
    snprintf(seconds, sizeof seconds, "%d", lifetime);
    const char *args[] = {"--rules", file, "--auth-token-lifetime", seconds, "--no-auth", NULL};
    REQUIRE(emulator_start(&owned, EMU->flavor, "127.0.0.1", args) == 0);
    free(file);
    return &owned;
}

/* Uploads bytes to path and waits; returns the task's final code. */
static int upload(fbs_storage *s, const char *path, const void *bytes, size_t n) {
    fbs_reference *r = NULL;
    fbs_task *t = NULL;
    REQUIRE_OK(fbs_storage_reference(s, path, &r));
    REQUIRE_OK(fbs_reference_put_data(r, bytes, n, NULL, &t));
    int code = fbs_task_wait(t, 60000);
    fbs_task_free(t);
    fbs_reference_free(r);
    return code;
}

static char *own_path(const fbs_user *user, const char *name) {
    char *path = NULL;
    REQUIRE(asprintf(&path, "users/%s/%s", fbs_user_uid(user), name) > 0);
    return path;
}

/* Sends an admin request to the emulator's Auth routes (as firebase-admin does). */
static long auth_admin(const emulator *e, const char *method_and_path, const char *json) {
    char url[512];
    snprintf(url, sizeof url, "%s/identitytoolkit.googleapis.com/v1/projects/demo-project/%s", e->base_url, method_and_path);
    const char *headers[] = {"Authorization: Bearer owner", "Content-Type: application/json", NULL};
    return http_request("POST", url, headers, json, strlen(json), NULL);
}

TEST(signin_anonymous_user_writes_only_its_own_folder) {
    emulator *e = start_owned(3600);
    fbs_auth *auth = auth_for(e);
    fbs_user *user = NULL;
    REQUIRE_OK(fbs_auth_sign_in_anonymously(auth, &user));
    REQUIRE(fbs_user_uid(user) != NULL && strlen(fbs_user_uid(user)) > 0);
    CHECK_EQ_INT(fbs_user_is_anonymous(user), 1);
    CHECK_STR(fbs_user_sign_in_provider(user), "anonymous");
    CHECK(fbs_user_email(user) == NULL);
    CHECK(fbs_user_id_token(user) != NULL && fbs_user_refresh_token(user) != NULL);
    int64_t expires = fbs_user_token_expiration(user), issued = fbs_user_token_issued_at(user);
    CHECK(expires != FBS_TIME_ABSENT && issued != FBS_TIME_ABSENT && expires - issued == 3600 * 1000);
    CHECK(strstr(fbs_user_claims_json(user), "\"sign_in_provider\":\"anonymous\"") != NULL);

    fbs_storage *s = storage_using(e, auth);
    char *mine = own_path(user, "hello.txt");
    CHECK_CODE(upload(s, mine, "hi", 2), FBS_OK);
    CHECK_CODE(upload(s, "users/somebody-else/hello.txt", "hi", 2), FBS_ERR_UNAUTHORIZED);

    /* Signed out, the storage sends no token: its own folder is refused too. */
    REQUIRE_OK(fbs_auth_sign_out(auth));
    fbs_user *none = (fbs_user *)1;
    REQUIRE_OK(fbs_auth_current_user(auth, &none));
    CHECK(none == NULL);
    CHECK_CODE(upload(s, mine, "hi", 2), FBS_ERR_UNAUTHORIZED);
    free(mine);
    fbs_user_free(user);
    fbs_storage_free(s);
    fbs_auth_free(auth);
    emulator_stop(e);
}

TEST(signin_email_password_flows_and_their_errors) {
    emulator *e = start_owned(3600);
    fbs_auth *auth = auth_for(e);
    fbs_user *user = NULL;
    REQUIRE_OK(fbs_auth_create_user(auth, "ada@example.com", "correct-horse", &user));
    CHECK_STR(fbs_user_email(user), "ada@example.com");
    CHECK_STR(fbs_user_sign_in_provider(user), "password");
    CHECK_EQ_INT(fbs_user_is_anonymous(user), 0);
    char *uid = strdup(fbs_user_uid(user));
    fbs_user_free(user);

    CHECK_CODE(fbs_auth_create_user(auth, "ada@example.com", "another-one", NULL), FBS_ERR_AUTH_EMAIL_ALREADY_IN_USE);
    CHECK_CODE(fbs_auth_create_user(auth, "bob@example.com", "abc", NULL), FBS_ERR_AUTH_WEAK_PASSWORD);
    CHECK_CODE(fbs_auth_create_user(auth, "not-an-email", "long-enough", NULL), FBS_ERR_AUTH_INVALID_EMAIL);
    CHECK_CODE(fbs_auth_sign_in_with_email(auth, "ada@example.com", "wrong-password-123", NULL), FBS_ERR_AUTH_WRONG_PASSWORD);
    CHECK(strstr(fbs_last_error_message(), "wrong-password-123") == NULL);
    CHECK_CODE(fbs_auth_sign_in_with_email(auth, "nobody@example.com", "whatever-123", NULL),
               FBS_ERR_AUTH_USER_NOT_FOUND);
    /* Input that can never succeed fails at once, nothing sent. */
    CHECK_CODE(fbs_auth_sign_in_with_email(auth, "", "x", NULL), FBS_ERR_INVALID_ARGUMENT);
    CHECK_CODE(fbs_auth_sign_in_with_email(auth, "ada@example.com", NULL, NULL), FBS_ERR_INVALID_ARGUMENT);
    CHECK_CODE(fbs_auth_sign_in_with_email(auth, "\xff\xfe", "x", NULL), FBS_ERR_INVALID_ARGUMENT);

    /* A failed sign-in keeps the current user. */
    REQUIRE_OK(fbs_auth_current_user(auth, &user));
    REQUIRE(user != NULL);
    CHECK_STR(fbs_user_uid(user), uid);
    fbs_user_free(user);

    REQUIRE_OK(fbs_auth_sign_in_with_email(auth, "ada@example.com", "correct-horse", &user));
    CHECK_STR(fbs_user_uid(user), uid);
    fbs_user_free(user);

    /* Deleting the account signs out; the password no longer works. */
    REQUIRE_OK(fbs_auth_delete_user(auth));
    REQUIRE_OK(fbs_auth_current_user(auth, &user));
    CHECK(user == NULL);
    CHECK_CODE(fbs_auth_delete_user(auth), FBS_ERR_AUTH_NO_USER);
    CHECK_CODE(fbs_auth_sign_in_with_email(auth, "ada@example.com", "correct-horse", NULL), FBS_ERR_AUTH_USER_NOT_FOUND);
    free(uid);
    fbs_auth_free(auth);
    emulator_stop(e);
}

TEST(signin_custom_token_carries_custom_claims_to_rules) {
    emulator *e = start_owned(3600);
    fbs_auth *auth = auth_for(e);
    /* An unsigned custom token as firebase-admin mints against the emulator: uid "carol" with
     * the custom claim admin = true. */
    const char *token =
        "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJhdWQiOiJodHRwczovL2lkZW50aXR5dG9vbGtpdC5nb29nbGVhcGlzLmNvbS9n"
        "b29nbGUuaWRlbnRpdHkuaWRlbnRpdHl0b29sa2l0LnYxLklkZW50aXR5VG9vbGtpdCIsInVpZCI6ImNhcm9sIiwiY2xhaW1zIjp7"
        "ImFkbWluIjp0cnVlfSwiaWF0IjoxNzAwMDAwMDAwLCJleHAiOjQxMDI0NDQ4MDB9.";
    fbs_user *user = NULL;
    REQUIRE_OK(fbs_auth_sign_in_with_custom_token(auth, token, &user));
    CHECK_STR(fbs_user_uid(user), "carol");
    CHECK_STR(fbs_user_sign_in_provider(user), "custom");
    CHECK(strstr(fbs_user_claims_json(user), "\"admin\":true") != NULL);
    fbs_storage *s = storage_using(e, auth);
    CHECK_CODE(upload(s, "admins/report.txt", "ok", 2), FBS_OK);
    CHECK_CODE(fbs_auth_sign_in_with_custom_token(auth, "not-a-token", NULL), FBS_ERR_AUTH_INVALID_CUSTOM_TOKEN);

    /* Another user without the claim is refused there. */
    REQUIRE_OK(fbs_auth_sign_in_anonymously(auth, NULL));
    CHECK_CODE(upload(s, "admins/report.txt", "no", 2), FBS_ERR_UNAUTHORIZED);
    fbs_user_free(user);
    fbs_storage_free(s);
    fbs_auth_free(auth);
    emulator_stop(e);
}

TEST(signin_session_restores_from_refresh_token_and_persistence_file) {
    emulator *e = start_owned(3600);
    fbs_auth *first = auth_for(e);
    char *file = temp_path(".session");
    REQUIRE_OK(fbs_auth_set_persistence_file(first, file));
    fbs_user *user = NULL;
    REQUIRE_OK(fbs_auth_create_user(first, "kept@example.com", "secret-pass", &user));
    char *uid = strdup(fbs_user_uid(user));
    char *refresh = strdup(fbs_user_refresh_token(user));
    fbs_user_free(user);

    struct stat info;
    REQUIRE(stat(file, &info) == 0);
    CHECK_EQ_INT(info.st_mode & 0777, 0600);
    size_t length = 0;
    char *saved = (char *)read_file(file, &length);
    REQUIRE(saved != NULL);
    CHECK(strstr(saved, refresh) != NULL && strstr(saved, "secret-pass") == NULL);
    free(saved);

    /* A new auth (as a new process would) restores the session from the file at once. */
    fbs_auth *second = auth_for(e);
    REQUIRE_OK(fbs_auth_set_persistence_file(second, file));
    REQUIRE_OK(fbs_auth_current_user(second, &user));
    REQUIRE(user != NULL);
    CHECK_STR(fbs_user_uid(user), uid);
    CHECK_STR(fbs_user_email(user), "kept@example.com");
    fbs_user_free(user);
    char *token = NULL;
    REQUIRE_OK(fbs_auth_get_id_token(second, 0, &token));   /* fetched with the saved refresh token */
    CHECK(token != NULL && strlen(token) > 20);
    fbs_string_free(token);

    /* A refresh token alone signs in a third. */
    fbs_auth *third = auth_for(e);
    REQUIRE_OK(fbs_auth_sign_in_with_refresh_token(third, refresh, &user));
    CHECK_STR(fbs_user_uid(user), uid);
    fbs_user_free(user);
    CHECK_CODE(fbs_auth_sign_in_with_refresh_token(third, "garbage", NULL), FBS_ERR_AUTH_INVALID_REFRESH_TOKEN);

    /* Signing out removes the file. */
    REQUIRE_OK(fbs_auth_sign_out(second));
    CHECK(access(file, F_OK) != 0);
    char junk[] = "{not json";
    char *bad = temp_file_with(junk, strlen(junk), ".session");
    CHECK_CODE(fbs_auth_set_persistence_file(second, bad), FBS_ERR_INVALID_ARGUMENT);
    CHECK(strstr(fbs_last_error_message(), bad) != NULL);
    CHECK_CODE(fbs_auth_set_persistence_file(second, "/nonexistent-folder/session.json"), FBS_ERR_INVALID_ARGUMENT);
    CHECK(strstr(fbs_last_error_message(), "does not exist") != NULL);
    free(bad);
    free(uid);
    free(refresh);
    free(file);
    fbs_auth_free(first);
    fbs_auth_free(second);
    fbs_auth_free(third);
    emulator_stop(e);
}

typedef struct listener_log {
    pthread_mutex_t lock;
    int calls, with_user, signed_out;
} listener_log;

static void on_state(const fbs_user *user, void *u) {
    listener_log *log = u;
    pthread_mutex_lock(&log->lock);
    log->calls++;
    log->with_user += user != NULL;
    log->signed_out += user == NULL;
    pthread_mutex_unlock(&log->lock);
}

static int calls_of(listener_log *log) {
    pthread_mutex_lock(&log->lock);
    int calls = log->calls;
    pthread_mutex_unlock(&log->lock);
    return calls;
}

/* Waits until the listener has been called `n` times; listeners run on the callback thread. */
static int wait_calls(listener_log *log, int n) {
    for (int i = 0; i < 5000 && calls_of(log) < n; i++) usleep(1000);
    return calls_of(log);
}

TEST(signin_listeners_run_at_registration_and_on_changes) {
    emulator *e = start_owned(3600);
    fbs_auth *auth = auth_for(e);
    listener_log state = {PTHREAD_MUTEX_INITIALIZER, 0, 0, 0}, tokens = {PTHREAD_MUTEX_INITIALIZER, 0, 0, 0};
    fbs_listener_handle state_handle = 0, token_handle = 0;
    REQUIRE_OK(fbs_auth_add_state_listener(auth, on_state, &state, &state_handle));
    REQUIRE_OK(fbs_auth_add_id_token_listener(auth, on_state, &tokens, &token_handle));
    CHECK(state_handle != 0 && token_handle != 0 && state_handle != token_handle);
    CHECK_EQ_INT(wait_calls(&state, 1), 1);   /* at registration, signed out */
    CHECK_EQ_INT(state.signed_out, 1);
    REQUIRE_OK(fbs_auth_sign_in_anonymously(auth, NULL));
    CHECK_EQ_INT(wait_calls(&state, 2), 2);
    char *token = NULL;
    REQUIRE_OK(fbs_auth_get_id_token(auth, 1, &token));   /* a forced refresh: a new ID token */
    fbs_string_free(token);
    CHECK_EQ_INT(wait_calls(&tokens, 3), 3);              /* registration, sign-in, refresh */
    CHECK_EQ_INT(calls_of(&state), 2);                    /* a refresh is no change of user */
    REQUIRE_OK(fbs_auth_remove_listener(auth, state_handle));
    CHECK_CODE(fbs_auth_remove_listener(auth, state_handle), FBS_ERR_INVALID_ARGUMENT);
    REQUIRE_OK(fbs_auth_sign_out(auth));
    CHECK_EQ_INT(wait_calls(&tokens, 4), 4);
    CHECK_EQ_INT(calls_of(&state), 2);                    /* removed: not called again */
    CHECK_CODE(fbs_auth_add_state_listener(auth, NULL, NULL, NULL), FBS_ERR_INVALID_ARGUMENT);
    fbs_auth_free(auth);
    emulator_stop(e);
}

TEST(signin_update_profile_sets_keeps_and_deletes_fields) {
    emulator *e = start_owned(3600);
    fbs_auth *auth = auth_for(e);
    CHECK_CODE(fbs_auth_update_profile(auth, "Ada", NULL, NULL), FBS_ERR_AUTH_NO_USER);
    fbs_user *user = NULL;
    REQUIRE_OK(fbs_auth_create_user(auth, "profile@example.com", "correct-horse", &user));
    char *uid = strdup(fbs_user_uid(user));
    fbs_user_free(user);
    listener_log tokens = {PTHREAD_MUTEX_INITIALIZER, 0, 0, 0};
    REQUIRE_OK(fbs_auth_add_id_token_listener(auth, on_state, &tokens, NULL));
    CHECK_EQ_INT(wait_calls(&tokens, 1), 1);

    REQUIRE_OK(fbs_auth_update_profile(auth, "Ada Lovelace", "https://example.com/ada.png", &user));
    CHECK_STR(fbs_user_uid(user), uid);   /* the same account, still signed in */
    CHECK_STR(fbs_user_display_name(user), "Ada Lovelace");
    CHECK_STR(fbs_user_photo_url(user), "https://example.com/ada.png");
    CHECK_STR(fbs_user_email(user), "profile@example.com");
    fbs_user_free(user);
    CHECK_EQ_INT(wait_calls(&tokens, 2), 2);   /* the ID-token listener heard of it */

    /* NULL keeps a field, "" deletes it; the next ID token carries what the server has. */
    REQUIRE_OK(fbs_auth_update_profile(auth, NULL, "", NULL));
    char *token = NULL;
    REQUIRE_OK(fbs_auth_get_id_token(auth, 1, &token));
    fbs_string_free(token);
    REQUIRE_OK(fbs_auth_current_user(auth, &user));
    CHECK_STR(fbs_user_display_name(user), "Ada Lovelace");
    CHECK(fbs_user_photo_url(user) == NULL);
    CHECK(strstr(fbs_user_claims_json(user), "\"name\":\"Ada Lovelace\"") != NULL);
    CHECK(strstr(fbs_user_claims_json(user), "picture") == NULL);
    fbs_user_free(user);

    CHECK_CODE(fbs_auth_update_profile(auth, "line\nbreak", NULL, NULL), FBS_ERR_INVALID_ARGUMENT);
    CHECK_CODE(fbs_auth_update_profile(auth, "\xff\xfe", NULL, NULL), FBS_ERR_INVALID_ARGUMENT);
    CHECK_CODE(fbs_auth_update_profile(NULL, "x", NULL, NULL), FBS_ERR_INVALID_ARGUMENT);
    free(uid);
    fbs_auth_free(auth);
    emulator_stop(e);
}

/* The emulator's Secure Token calls and storage 401s so far. */
static void count_requests(const emulator *e, size_t *refreshes, size_t *unauthorized) {
    reqlog log;
    reqlog_fetch(e, &log);
    *refreshes = reqlog_count(&log, "POST", "/securetoken.googleapis.com/v1/token", NULL);
    *unauthorized = 0;
    for (size_t i = 0; i < log.count; i++) *unauthorized += log.items[i].status == 401;
    reqlog_free(&log);
}

TEST_EX(signin_token_expiring_mid_work_is_refreshed_once_per_expiry, TEST_NEEDS_EMULATOR, 120) {
    const int lifetime = 3;   /* seconds; renewed a twelfth of it (0.25 s) before it expires */
    emulator *e = start_owned(lifetime);
    fbs_auth *auth = auth_for(e);
    fbs_user *user = NULL;
    REQUIRE_OK(fbs_auth_sign_in_anonymously(auth, &user));
    fbs_storage *s = storage_using(e, auth);
    REQUIRE_OK(fbs_storage_set_upload_chunk_size(s, 1 << 20));
    char *path = own_path(user, "big.bin");
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);

    /* A resumable upload outliving its token: 1 MiB chunks, each held 150 ms by the emulator
     * (about 5 s). Chunks go to the session URL, its own credential, so no byte waits for a token. */
    const size_t n = 32u << 20;
    fault_match chunks = {"PUT", NULL, NULL, "upload_id", FOREVER};
    emu_fault_delay(e, chunks, 150);
    unsigned char *bytes = random_bytes(n, 11);
    CHECK_CODE(upload(s, path, bytes, n), FBS_OK);
    size_t length = 0;
    unsigned char *stored = emu_fetch_object(e, path, &length);
    CHECK(stored != NULL && length == n && memcmp(stored, bytes, n) == 0);

    /* Then authenticated requests, each held 100 ms, for about 3 more lifetimes. */
    emu_clear(e, "faults");
    fault_match reads = {"GET", NULL, object_prefix(path), NULL, FOREVER};
    emu_fault_delay(e, reads, 100);
    fbs_reference *r = NULL;
    REQUIRE_OK(fbs_storage_reference(s, path, &r));
    for (int i = 0; i < 80; i++) {
        fbs_metadata *m = NULL;
        REQUIRE_OK(fbs_reference_get_metadata(r, &m));
        fbs_metadata_free(m);
    }
    clock_gettime(CLOCK_MONOTONIC, &end);
    double elapsed = (end.tv_sec - start.tv_sec) + (end.tv_nsec - start.tv_nsec) / 1e9;
    size_t refreshes = 0, unauthorized = 0;
    count_requests(e, &refreshes, &unauthorized);
    /* One refresh per expiry: renewed 1/12 of its lifetime before its end, never after a 401. */
    double periods = elapsed / (lifetime * 11.0 / 12.0);
    CHECK((double)refreshes >= periods - 2);
    CHECK((double)refreshes <= periods + 1);
    CHECK_EQ_INT(unauthorized, 0);
    printf("  %zu MiB upload and 80 reads took %.1f s with %zu refreshes (token lifetime %d s)\n", n >> 20, elapsed,
           refreshes, lifetime);
    fbs_reference_free(r);
    free(stored);
    free(bytes);
    free(path);
    fbs_user_free(user);
    fbs_storage_free(s);
    fbs_auth_free(auth);
    emulator_stop(e);
}

TEST(signin_disabled_user_fails_the_next_request_with_that_cause) {
    if (strcmp(EMU->flavor, "production") != 0) {
        test_skip("firebase-tools' storage emulator accepts any readable token (no 401 to react to)");
        return;
    }
    emulator *e = start_owned(3600);
    fbs_auth *auth = auth_for(e);
    fbs_user *user = NULL;
    REQUIRE_OK(fbs_auth_sign_in_anonymously(auth, &user));
    fbs_storage *s = storage_using(e, auth);
    char *path = own_path(user, "a.txt");
    CHECK_CODE(upload(s, path, "a", 1), FBS_OK);
    char body[256];
    snprintf(body, sizeof body, "{\"localId\":\"%s\",\"disableUser\":true}", fbs_user_uid(user));
    CHECK_EQ_INT(auth_admin(e, "accounts:update", body), 200);
    CHECK_CODE(upload(s, path, "b", 1), FBS_ERR_AUTH_USER_DISABLED);
    fbs_user *after = (fbs_user *)1;
    REQUIRE_OK(fbs_auth_current_user(auth, &after));
    CHECK(after == NULL);   /* the session ended */
    free(path);
    fbs_user_free(user);
    fbs_storage_free(s);
    fbs_auth_free(auth);
    emulator_stop(e);
}

/* An asynchronous provider answering from a thread of its own. */
typedef struct async_provider {
    const char *token;   /* NULL: fail the request */
    int calls;
} async_provider;

typedef struct pending_answer {
    fbs_token_request *request;
    const char *token;
} pending_answer;

static void *answer_later(void *u) {
    pending_answer *p = u;
    usleep(50000);
    if (p->token) fbs_token_request_complete(p->request, p->token);
    else fbs_token_request_fail(p->request, "the identity service is down");
    free(p);
    return NULL;
}

static void provide_async(int force_refresh, fbs_token_request *request, void *u) {
    (void)force_refresh;
    async_provider *provider = u;
    __atomic_add_fetch(&provider->calls, 1, __ATOMIC_SEQ_CST);
    pending_answer *p = malloc(sizeof *p);
    p->request = request;
    p->token = provider->token;
    pthread_t thread;
    pthread_create(&thread, NULL, answer_later, p);
    pthread_detach(thread);
}

TEST(signin_async_token_provider_answers_from_another_thread) {
    emulator *e = start_owned(3600);
    fbs_auth *auth = auth_for(e);
    char *token = NULL;
    fbs_user *user = NULL;
    REQUIRE_OK(fbs_auth_sign_in_anonymously(auth, &user));
    REQUIRE_OK(fbs_auth_get_id_token(auth, 0, &token));
    async_provider provider = {token, 0};
    fbs_storage *s = NULL;
    REQUIRE_OK(fbs_storage_new(BUCKET, &s));
    REQUIRE_OK(fbs_storage_use_emulator(s, e->host, e->port));
    REQUIRE_OK(fbs_storage_set_auth_token_provider_async(s, provide_async, &provider));
    char *path = own_path(user, "async.txt");
    CHECK_CODE(upload(s, path, "async", 5), FBS_OK);
    CHECK(__atomic_load_n(&provider.calls, __ATOMIC_SEQ_CST) >= 1);
    async_provider failing = {NULL, 0};
    REQUIRE_OK(fbs_storage_set_auth_token_provider_async(s, provide_async, &failing));
    CHECK_CODE(upload(s, path, "async", 5), FBS_ERR_UNAUTHENTICATED);
    CHECK(strstr(fbs_last_error_message(), "identity service is down") != NULL);
    CHECK_CODE(fbs_token_request_complete(NULL, "x"), FBS_ERR_INVALID_ARGUMENT);
    fbs_string_free(token);
    free(path);
    fbs_user_free(user);
    fbs_storage_free(s);
    fbs_auth_free(auth);
    emulator_stop(e);
}

TEST_OFFLINE(signin_bad_arguments_fail_at_once) {
    fbs_auth *auth = NULL;
    CHECK_CODE(fbs_auth_new(NULL, NULL, &auth), FBS_ERR_INVALID_ARGUMENT);
    CHECK_CODE(fbs_auth_new("", NULL, &auth), FBS_ERR_INVALID_ARGUMENT);
    CHECK_CODE(fbs_auth_new("key", NULL, NULL), FBS_ERR_INVALID_ARGUMENT);
    REQUIRE_OK(fbs_auth_new("key", NULL, &auth));
    CHECK_CODE(fbs_auth_use_emulator(auth, "", 9099), FBS_ERR_INVALID_ARGUMENT);
    CHECK_CODE(fbs_auth_use_emulator(auth, "localhost", 0), FBS_ERR_INVALID_ARGUMENT);
    CHECK_CODE(fbs_auth_sign_in_with_custom_token(auth, "", NULL), FBS_ERR_INVALID_ARGUMENT);
    CHECK_CODE(fbs_auth_sign_in_with_refresh_token(auth, NULL, NULL), FBS_ERR_INVALID_ARGUMENT);
    CHECK_CODE(fbs_auth_sign_in_anonymously_async(auth, NULL, NULL), FBS_ERR_INVALID_ARGUMENT);
    char *token = NULL;
    CHECK_CODE(fbs_auth_get_id_token(auth, 0, &token), FBS_ERR_AUTH_NO_USER);
    CHECK_CODE(fbs_auth_current_user(NULL, NULL), FBS_ERR_INVALID_ARGUMENT);
    CHECK(fbs_user_uid(NULL) == NULL);
    CHECK_EQ_INT(fbs_user_is_anonymous(NULL), -1);
    CHECK(fbs_user_token_expiration(NULL) == FBS_TIME_ABSENT);
    /* Nothing listens on this loopback port: a clear error within the 2 s grace. */
    REQUIRE_OK(fbs_auth_use_emulator(auth, "127.0.0.1", 9));
    CHECK_CODE(fbs_auth_sign_in_anonymously(auth, NULL), FBS_ERR_RETRY_LIMIT_EXCEEDED);
    CHECK(strstr(fbs_last_error_message(), "127.0.0.1:9") != NULL);
    fbs_auth_free(auth);
    fbs_auth_free(NULL);
    CHECK_CODE(fbs_storage_use_auth(NULL, NULL), FBS_ERR_INVALID_ARGUMENT);
}
