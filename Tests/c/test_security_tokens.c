/* test_security_tokens.c — planted tokens never show up in an error message or a debug log
 * line, whatever fails (statuses, retries, 401 refresh, dropped connections, refused
 * connections, a server echoing the token); upload session IDs never show up in the log; and
 * no token goes to a plain-http host that is not loopback (test_auth checks the Authorization
 * header there; this checks every header, the App Check token and the provider). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "reqlog.h"

#define KIB 1024
#define ID_TOKEN "PLANTED-ID-TOKEN-5f1d"
#define APP_CHECK_TOKEN "PLANTED-APPCHECK-TOKEN-9c2e"

/* ---- captured log lines and messages --------------------------------------------------- */
static pthread_mutex_t captured_lock = PTHREAD_MUTEX_INITIALIZER;
static char *captured[8192];
static size_t captured_count;

static void capture(const char *text) {
    pthread_mutex_lock(&captured_lock);
    if (captured_count < sizeof captured / sizeof captured[0]) captured[captured_count++] = strdup(text);
    pthread_mutex_unlock(&captured_lock);
}

static void on_log_line(int level, const char *line, void *user_data) {
    (void)level; (void)user_data;
    capture(line);
}

/* The last error's message and server response, as a caller would print them. */
static void capture_last_error(void) {
    capture(fbs_last_error_message());
    if (fbs_last_error_server_response()) capture(fbs_last_error_server_response());
}

/* How many captured texts contain needle; prints the first few when `show_as` is set. */
static size_t captured_containing(const char *needle, const char *show_as) {
    size_t n = 0;
    pthread_mutex_lock(&captured_lock);
    for (size_t i = 0; i < captured_count; i++)
        if (strstr(captured[i], needle) && n++ < 3 && show_as) printf("      %s: %s\n", show_as, captured[i]);
    pthread_mutex_unlock(&captured_lock);
    return n;
}

static const char *token_provider(int force_refresh, void *user_data) {
    (void)force_refresh;
    ++*(int *)user_data;
    return ID_TOKEN;
}

static fbs_storage *planted_storage(const char *host, int port, int *provider_calls) {
    fbs_storage *s = NULL;
    REQUIRE_OK(fbs_storage_new(BUCKET, &s));
    REQUIRE_OK(fbs_storage_use_emulator(s, host, port));
    REQUIRE_OK(fbs_storage_set_auth_token_provider(s, token_provider, provider_calls));
    REQUIRE_OK(fbs_storage_set_app_check_token(s, APP_CHECK_TOKEN));
    REQUIRE_OK(fbs_storage_set_upload_chunk_size(s, 256 * KIB));
    REQUIRE_OK(fbs_storage_set_max_upload_retry_time(s, 2));
    REQUIRE_OK(fbs_storage_set_max_operation_retry_time(s, 2));
    return s;
}

/* Uploads and records the task's outcome message; returns its code. */
static int planted_upload(fbs_storage *s, const char *path, size_t n, char **session_out) {
    unsigned char *bytes = random_bytes(n, 81);
    fbs_reference *r = new_ref(s, path);
    fbs_task *t = NULL;
    REQUIRE_OK(fbs_reference_put_data(r, bytes, n, NULL, &t));
    for (double until = now_s() + 10; session_out && !*session_out && now_s() < until; sleep_ms(5))
        REQUIRE_OK(fbs_task_upload_session(t, session_out));
    int rc = fbs_task_wait(t, 30000);
    capture_last_error();
    fbs_snapshot *snap = NULL;
    REQUIRE_OK(fbs_task_snapshot(t, &snap));
    if (fbs_snapshot_error_message(snap)) capture(fbs_snapshot_error_message(snap));
    fbs_snapshot_free(snap);
    fbs_task_free(t);
    fbs_reference_free(r);
    free(bytes);
    return rc;
}

static int planted_get_metadata(fbs_storage *s, const char *path) {
    fbs_reference *r = new_ref(s, path);
    fbs_metadata *m = NULL;
    int rc = fbs_reference_get_metadata(r, &m);
    capture_last_error();
    fbs_metadata_free(m);
    fbs_reference_free(r);
    return rc;
}

TEST(security_tokens_never_in_messages_or_log) {
    int calls = 0;
    REQUIRE_OK(fbs_library_set_log_handler(on_log_line, NULL));
    fbs_storage *s = planted_storage(EMU->host, EMU->port, &calls);

    CHECK_CODE(planted_get_metadata(s, "security/missing.bin"), FBS_ERR_OBJECT_NOT_FOUND);
    emu_fault_status(EMU, (fault_match){"GET", NULL, NULL, NULL, 2}, 401, 0);   /* refresh, then give up */
    CHECK_CODE(planted_get_metadata(s, "security/missing.bin"), FBS_ERR_UNAUTHENTICATED);
    emu_fault(EMU, "{\"match\": {\"method\": \"GET\"}, \"times\": 1, \"action\": {\"status\": 403, \"body\": "
                   "\"{\\\"error\\\": {\\\"code\\\": 403, \\\"message\\\": \\\"Bad credential: Firebase " ID_TOKEN
                   " / " APP_CHECK_TOKEN "\\\"}}\"}}");
    CHECK_CODE(planted_get_metadata(s, "security/missing.bin"), FBS_ERR_UNAUTHORIZED);
    emu_fault_status(EMU, (fault_match){"GET", NULL, NULL, NULL, FOREVER}, 503, 0);
    CHECK_CODE(planted_get_metadata(s, "security/missing.bin"), FBS_ERR_RETRY_LIMIT_EXCEEDED);
    emu_reset(EMU);

    /* resumable: a 503 chunk, a dropped chunk, then success; the session ID must stay out of the log */
    char *session = NULL;
    emu_fault_status(EMU, (fault_match){NULL, "upload", NULL, NULL, 1}, 503, 0);
    emu_fault_drop(EMU, (fault_match){NULL, "upload", NULL, NULL, 1}, 100000);
    CHECK_CODE(planted_upload(s, "security/resumable.bin", 900 * KIB, &session), FBS_OK);
    emu_fault_status(EMU, (fault_match){"POST", NULL, NULL, NULL, FOREVER}, 500, 0);
    CHECK_CODE(planted_upload(s, "security/failing.bin", 10 * KIB, NULL), FBS_ERR_RETRY_LIMIT_EXCEEDED);
    emu_reset(EMU);
    fbs_storage_free(s);

    /* nothing listening: transport errors */
    s = planted_storage("127.0.0.1", 1, &calls);
    CHECK_CODE(planted_upload(s, "security/refused.bin", 10 * KIB, NULL), FBS_ERR_RETRY_LIMIT_EXCEEDED);
    fbs_storage_free(s);
    REQUIRE_OK(fbs_library_set_log_handler(NULL, NULL));

    /* the tokens were really in play, and the log really covered the failures */
    CHECK(calls >= 4);
    CHECK(captured_containing("HTTP 503", NULL) >= 2);
    CHECK(captured_containing("retrying in", NULL) >= 2);
    CHECK(captured_containing("[query]", NULL) >= 1);
    CHECK_EQ_INT(captured_containing(ID_TOKEN, "leaked in"), 0);
    CHECK_EQ_INT(captured_containing(APP_CHECK_TOKEN, "leaked in"), 0);
    REQUIRE(session != NULL);
    const char *id = strstr(session, "upload_id=");
    REQUIRE(id != NULL);
    char upload_id[128];
    snprintf(upload_id, sizeof upload_id, "%.*s", (int)strcspn(id + 10, "&\""), id + 10);
    CHECK(strlen(upload_id) >= 8);
    CHECK_EQ_INT(captured_containing(upload_id, "leaked in"), 0);
    CHECK(captured_containing("upload_id=REDACTED", NULL) >= 1);
    fbs_string_free(session);
}

TEST(security_no_token_to_plain_http_remote_host) {
    const char *other = non_loopback_address();
    if (!other) {
        test_skip("no non-loopback IPv4 address on this machine");
        return;
    }
    emulator e;
    REQUIRE(emulator_start(&e, EMU->flavor, "0.0.0.0", NULL) == 0);
    snprintf(e.base_url, sizeof e.base_url, "http://127.0.0.1:%d", e.port);
    int calls = 0;
    fbs_storage *s = planted_storage(other, e.port, &calls);
    CHECK_CODE(planted_upload(s, "security/remote.bin", 700 * KIB, NULL), FBS_OK);
    CHECK_CODE(planted_get_metadata(s, "security/remote.bin"), FBS_OK);
    fbs_storage_free(s);
    char *requests = emu_requests_json(&e);
    CHECK(strstr(requests, "remote.bin") != NULL);
    CHECK(strstr(requests, ID_TOKEN) == NULL);
    CHECK(strstr(requests, APP_CHECK_TOKEN) == NULL);
    CHECK_EQ_INT(calls, 0);   /* the provider is not even asked */
    free(requests);

    s = planted_storage("127.0.0.1", e.port, &calls);   /* the control: loopback gets both */
    CHECK_CODE(planted_get_metadata(s, "security/remote.bin"), FBS_OK);
    fbs_storage_free(s);
    requests = emu_requests_json(&e);
    CHECK(strstr(requests, ID_TOKEN) != NULL);
    CHECK(strstr(requests, APP_CHECK_TOKEN) != NULL);
    free(requests);
    emulator_stop(&e);
}
