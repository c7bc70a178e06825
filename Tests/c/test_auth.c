/* test_auth.c — token provider and refresh after 401, tokens only to loopback/https,
 * FIREBASE_STORAGE_EMULATOR_HOST. Uses its own emulator with a rules file requiring sign-in,
 * listening on every address so it can also be reached through a non-loopback one; in the
 * production flavor, which answers 401 for an expired ID token (the official emulator never
 * answers 401). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "reqlog.h"

/* alice's ID token, and the same user's token expired long ago (exp: 1), minted by the emulator
 * (start_secured) for its project. */
static char *JWT, *EXPIRED_JWT;

static emulator secured;

/* Starts the signed-in-only emulator (once per test process). */
static emulator *start_secured(void) {
    const char *rules = "rules_version = '2';\n"
                        "service firebase.storage {\n"
                        "  match /b/{bucket}/o/{path=**} {\n"
                        "    allow read, write: if request.auth != null;\n"
                        "  }\n"
                        "}\n";
    char *file = temp_file_with(rules, strlen(rules), ".rules");
    /* The project of the tokens it mints (aud, iss). */
    const char *args[] = {"--rules", file, "--project", "fbs-test", NULL};
    REQUIRE(emulator_start(&secured, "production", "0.0.0.0", args) == 0);
    snprintf(secured.host, sizeof secured.host, "127.0.0.1");
    snprintf(secured.base_url, sizeof secured.base_url, "http://127.0.0.1:%d", secured.port);
    free(file);
    JWT = emu_id_token(&secured, "{\"user_id\": \"alice\"}");
    EXPIRED_JWT = emu_id_token(&secured, "{\"user_id\": \"alice\", \"exp\": 1}");
    return &secured;
}

static fbs_storage *storage_for(const emulator *e, const char *host) {
    fbs_storage *s = NULL;
    REQUIRE_OK(fbs_storage_new(BUCKET, &s));
    REQUIRE_OK(fbs_storage_use_emulator(s, host, e->port));
    REQUIRE_OK(fbs_storage_set_max_upload_retry_time(s, 5));
    REQUIRE_OK(fbs_storage_set_max_operation_retry_time(s, 5));
    return s;
}

typedef struct provider_state {
    pthread_mutex_t lock;
    int calls, refresh_calls, main_thread_calls;
    int always_bad;
} provider_state;

static const char *provider(int force_refresh, void *u) {
    provider_state *p = u;
    pthread_mutex_lock(&p->lock);
    p->calls++;
    p->refresh_calls += force_refresh == 1;
    p->main_thread_calls += pthread_equal(pthread_self(), main_thread);
    pthread_mutex_unlock(&p->lock);
    if (p->always_bad || !force_refresh) return EXPIRED_JWT;
    return JWT;
}

TEST(auth_token_provider_refreshes_after_401) {
    emulator *e = start_secured();
    fbs_storage *s = storage_for(e, "127.0.0.1");
    provider_state p = {PTHREAD_MUTEX_INITIALIZER, 0, 0, 0, 0};
    REQUIRE_OK(fbs_storage_set_auth_token_provider(s, provider, &p));
    fbs_reference *r = new_ref(s, "auth/a.txt");
    fbs_task *t = NULL;
    REQUIRE_OK(fbs_reference_put_data(r, "secret", 6, NULL, &t));
    CHECK_CODE(fbs_task_wait(t, 20000), FBS_OK);
    fbs_task_free(t);
    CHECK(p.refresh_calls >= 1);
    CHECK(p.calls > p.refresh_calls);   /* first without force_refresh */
    CHECK_EQ_INT(p.main_thread_calls, 0);
    fbs_metadata *m = NULL;
    int refreshes = p.refresh_calls;
    CHECK_CODE(fbs_reference_get_metadata(r, &m), FBS_OK);   /* refreshes again: the provider */
    CHECK(p.refresh_calls > refreshes);                      /* gives a bad token unless forced */
    CHECK_EQ_INT(fbs_metadata_size(m), 6);
    fbs_metadata_free(m);

    reqlog log;
    reqlog_fetch(e, &log);
    size_t with_jwt = 0, statuses_401 = 0;
    char expected[2048];
    snprintf(expected, sizeof expected, "Firebase %s", JWT);
    for (size_t i = 0; i < log.count; i++) {
        with_jwt += str_equal(log.items[i].authorization, expected);
        statuses_401 += log.items[i].status == 401;
    }
    CHECK(with_jwt >= 2);
    CHECK(statuses_401 >= 2);
    reqlog_free(&log);

    /* a provider that never gives a good token: UNAUTHENTICATED after one refresh */
    p.always_bad = 1;
    refreshes = p.refresh_calls;
    CHECK_CODE(fbs_reference_get_metadata(r, &m), FBS_ERR_UNAUTHENTICATED);
    CHECK_EQ_INT(fbs_last_error_http_status(), 401);
    CHECK_EQ_INT(p.refresh_calls - refreshes, 1);
    CHECK(strstr(fbs_last_error_message(), EXPIRED_JWT) == NULL);   /* never a token */
    /* no token at all: request.auth is null, so the rules deny */
    REQUIRE_OK(fbs_storage_set_auth_token_provider(s, NULL, NULL));
    CHECK_CODE(fbs_reference_get_metadata(r, &m), FBS_ERR_UNAUTHORIZED);
    /* a fixed token */
    REQUIRE_OK(fbs_storage_set_auth_token(s, JWT));
    CHECK_CODE(fbs_reference_get_metadata(r, &m), FBS_OK);
    fbs_metadata_free(m);
    fbs_reference_free(r);
    fbs_storage_free(s);
    emulator_stop(e);
}

TEST(auth_tokens_only_to_loopback) {
    emulator *e = start_secured();
    static const char *const loopbacks[] = {"127.0.0.1", "localhost", "127.1.2.3"};
    for (size_t i = 0; i < 3; i++) {
        fbs_storage *s = storage_for(e, loopbacks[i]);
        REQUIRE_OK(fbs_storage_set_auth_token(s, JWT));
        REQUIRE_OK(fbs_storage_set_app_check_token(s, "app-check-token"));
        check_code(upload_bytes(s, "auth/loop.txt", "x", 1), FBS_OK, loopbacks[i], __FILE__, __LINE__);
        fbs_storage_free(s);
    }
    reqlog log;
    reqlog_fetch(e, &log);
    char expected[2048];
    snprintf(expected, sizeof expected, "Firebase %s", JWT);
    size_t with = 0;
    for (size_t i = 0; i < log.count; i++) with += str_equal(log.items[i].authorization, expected);
    CHECK_EQ_INT(with, log.count);
    CHECK(log.count >= 3);
    reqlog_free(&log);

    const char *other = non_loopback_address();
    if (!other) {
        test_skip("no non-loopback IPv4 address on this machine");
    } else {
        emu_reset(e);
        fbs_storage *s = storage_for(e, other);
        REQUIRE_OK(fbs_storage_set_auth_token(s, JWT));
        /* plain http to a non-loopback host: the token is withheld, so the rules deny */
        CHECK_CODE(upload_bytes(s, "auth/remote.txt", "x", 1), FBS_ERR_UNAUTHORIZED);
        reqlog_fetch(e, &log);
        CHECK(log.count >= 1);
        for (size_t i = 0; i < log.count; i++)
            if (log.items[i].authorization)
                check_fail(__FILE__, __LINE__, "token sent to %s: %s", other, log.items[i].authorization);
        reqlog_free(&log);
        fbs_storage_free(s);
    }
    emulator_stop(e);
}

TEST(auth_emulator_host_environment) {
    char hostport[96];
    snprintf(hostport, sizeof hostport, "%s:%d", EMU->host, EMU->port);
    setenv("FIREBASE_STORAGE_EMULATOR_HOST", hostport, 1);
    fbs_storage *s = NULL;
    REQUIRE_OK(fbs_storage_new(BUCKET, &s));
    CHECK_CODE(upload_bytes(s, "env/a.txt", "env", 3), FBS_OK);
    size_t n = 0;
    unsigned char *got = emu_fetch_object(EMU, "env/a.txt", &n);
    CHECK(got && bytes_equal(got, n, "env", 3));
    free(got);
    fbs_reference *r = new_ref(s, "env/a.txt");
    char *url = NULL;
    REQUIRE_OK(fbs_reference_download_url(r, &url));
    CHECK(strncmp(url, EMU->base_url, strlen(EMU->base_url)) == 0);   /* the emulator's address */
    fbs_string_free(url);
    fbs_reference_free(r);
    fbs_storage_free(s);

    /* read at fbs_storage_new: changing it later does not matter; use_emulator overrides it */
    setenv("FIREBASE_STORAGE_EMULATOR_HOST", "127.0.0.1:9", 1);
    REQUIRE_OK(fbs_storage_new(BUCKET, &s));
    REQUIRE_OK(fbs_storage_use_emulator(s, EMU->host, EMU->port));
    CHECK_CODE(upload_bytes(s, "env/b.txt", "b", 1), FBS_OK);
    fbs_storage_free(s);
    unsetenv("FIREBASE_STORAGE_EMULATOR_HOST");
}
