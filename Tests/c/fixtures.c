/* fixtures.c — the emulator's control API and library fixtures shared by the tests. */
#define _GNU_SOURCE
#include "harness.h"
#include "json.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const ADMIN[] = {"Authorization: Bearer owner", NULL};
static const char *const JSON_ADMIN[] = {"Authorization: Bearer owner",
                                         "Content-Type: application/json", NULL};

static char *control_url(const emulator *e, const char *what) {
    char *u = NULL;
    if (asprintf(&u, "%s/_emulator/%s", e->base_url, what) < 0) abort();
    return u;
}

void emu_reset(const emulator *e) {
    char *u = control_url(e, "reset");
    http_response r;
    long st = http_request("POST", u, JSON_ADMIN, "{}", 2, &r);
    if (st < 200 || st >= 300)
        check_fail(__FILE__, __LINE__, "POST %s -> %ld %s", u, st, (char *)r.body);
    http_response_free(&r);
    free(u);
}

void emu_fault(const emulator *e, const char *json_text) {
    char *u = control_url(e, "faults");
    http_response r;
    long st = http_request("POST", u, JSON_ADMIN, json_text, strlen(json_text), &r);
    if (st < 200 || st >= 300) {
        check_fail(__FILE__, __LINE__, "POST %s %s -> %ld %s", u, json_text, st, (char *)r.body);
        http_response_free(&r);
        free(u);
        test_abort();
    }
    http_response_free(&r);
    free(u);
}

char *emu_id_token(const emulator *e, const char *claims_json) {
    char *u = control_url(e, "tokens");
    http_response r;
    long st = http_request("POST", u, JSON_ADMIN, claims_json, strlen(claims_json), &r);
    json *answer = st == 200 ? json_parse((const char *)r.body) : NULL;
    const char *token = json_str(json_get(answer, "idToken"));
    if (!token) {
        check_fail(__FILE__, __LINE__, "POST %s %s -> %ld %s", u, claims_json, st, (char *)r.body);
        test_abort();
    }
    char *copy = strdup(token);
    json_free(answer);
    http_response_free(&r);
    free(u);
    return copy;
}

char *emu_pending_oob(const emulator *e, const char *type, const char *email, const char *field) {
    char url[256];
    snprintf(url, sizeof url, "%s/emulator/v1/projects/demo-project/oobCodes", e->base_url);
    http_response response;
    long status = http_request("GET", url, NULL, NULL, 0, &response);
    json *answer = status == 200 ? json_parse((const char *)response.body) : NULL;
    if (!answer) {
        check_fail(__FILE__, __LINE__, "GET %s -> %ld", url, status);
        test_abort();
    }
    const json *codes = json_get(answer, "oobCodes");
    char *found = NULL;
    for (size_t i = 0; codes && i < codes->count; i++) {
        const json *code = json_at(codes, i);
        const char *kind = json_str(json_get(code, "requestType")), *to = json_str(json_get(code, "email"));
        const char *value = json_str(json_get(code, field));
        if (kind && to && value && strcmp(kind, type) == 0 && strcmp(to, email) == 0) {
            free(found);
            found = strdup(value);
        }
    }
    json_free(answer);
    http_response_free(&response);
    return found;
}

void emu_clear(const emulator *e, const char *what) {
    char *u = control_url(e, what);
    long st = http_request("DELETE", u, ADMIN, NULL, 0, NULL);
    if (st != 204) check_fail(__FILE__, __LINE__, "DELETE %s -> %ld", u, st);
    free(u);
}

void emu_wait_idle(const emulator *e, int timeout_ms) {
    for (double until = now_s() + timeout_ms / 1000.0;; sleep_ms(10)) {
        char *text = emu_requests_json(e);
        json *log = text ? json_parse(text) : NULL;
        double in_flight = json_num(json_get(log, "in_flight"), -1);
        json_free(log);
        free(text);
        if (in_flight == 0) return;
        if (now_s() > until) {
            check_fail(__FILE__, __LINE__, "the emulator still handles %g requests after %d ms", in_flight, timeout_ms);
            return;
        }
    }
}

char *emu_requests_json(const emulator *e) {
    char *u = control_url(e, "requests");
    http_response r;
    long st = http_request("GET", u, ADMIN, NULL, 0, &r);
    free(u);
    if (st != 200) {
        check_fail(__FILE__, __LINE__, "GET /_emulator/requests -> %ld", st);
        http_response_free(&r);
        return NULL;
    }
    free(r.headers);
    return (char *)r.body;
}

unsigned char *emu_fetch_object(const emulator *e, const char *path, size_t *length) {
    char *esc = url_escape(path), *u = NULL;   /* the raw bytes, no rules or side effects */
    if (asprintf(&u, "%s/_emulator/objects/%s/%s", e->base_url, BUCKET, esc) < 0) abort();
    free(esc);
    http_response r;
    long st = http_request("GET", u, ADMIN, NULL, 0, &r);
    free(u);
    free(r.headers);
    if (st != 200) { free(r.body); return NULL; }
    *length = r.length;
    return r.body;
}

void emu_put_object(const emulator *e, const char *path, const void *bytes, size_t length) {
    char *esc = url_escape(path), *u = NULL;
    if (asprintf(&u, "%s/v0/b/%s/o?name=%s", e->base_url, BUCKET, esc) < 0) abort();
    free(esc);
    static const char *const hdrs[] = {"Authorization: Bearer owner",
                                       "Content-Type: application/octet-stream", NULL};
    long st = http_request("POST", u, hdrs, bytes ? bytes : "", length, NULL);
    if (st != 200) check_fail(__FILE__, __LINE__, "direct upload of %s -> %ld", path, st);
    free(u);
}

/* ---- library fixtures ---------------------------------------------------------------- */
fbs_storage *new_storage(void) {
    fbs_storage *s = NULL;
    REQUIRE_OK(fbs_storage_new(BUCKET, &s));
    REQUIRE(EMU != NULL);
    REQUIRE_OK(fbs_storage_use_emulator(s, EMU->host, EMU->port));
    return s;
}

fbs_auth *auth_for(const emulator *e) {
    fbs_auth *auth = NULL;
    REQUIRE_OK(fbs_auth_new("fake-api-key", "demo-project", &auth));
    REQUIRE_OK(fbs_auth_use_emulator(auth, e->host, e->port));
    return auth;
}

fbs_storage *storage_using(const emulator *e, fbs_auth *auth) {
    fbs_storage *s = NULL;
    REQUIRE_OK(fbs_storage_new(BUCKET, &s));
    REQUIRE_OK(fbs_storage_use_emulator(s, e->host, e->port));
    REQUIRE_OK(fbs_storage_set_max_operation_retry_time(s, 10));
    REQUIRE_OK(fbs_storage_use_auth(s, auth));
    return s;
}

fbs_reference *new_ref(fbs_storage *s, const char *path) {
    fbs_reference *r = NULL;
    REQUIRE_OK(fbs_storage_reference(s, path, &r));
    return r;
}

int upload_bytes(fbs_storage *s, const char *path, const void *bytes, size_t n) {
    fbs_reference *r = new_ref(s, path);
    fbs_task *t = NULL;
    int rc = fbs_reference_put_data(r, bytes, n, NULL, &t);
    if (rc == FBS_OK) rc = fbs_task_wait(t, 60000);
    fbs_task_free(t);
    fbs_reference_free(r);
    return rc;
}

int wait_for_bytes(fbs_task *t, int64_t bytes, int timeout_ms) {
    double deadline = now_s() + timeout_ms / 1000.0;
    while (now_s() < deadline) {
        fbs_snapshot *s = NULL;
        if (fbs_task_snapshot(t, &s) != FBS_OK) return 0;
        int64_t got = fbs_snapshot_bytes_transferred(s);
        fbs_task_status st = fbs_snapshot_status(s);
        fbs_snapshot_free(s);
        if (got >= bytes) return 1;
        if (st == FBS_TASK_STATUS_SUCCESS || st == FBS_TASK_STATUS_FAILURE) return 0;
        sleep_ms(10);
    }
    return 0;
}

char *unique_path(const char *prefix) {
    static int counter;
    char *p = NULL;
    if (asprintf(&p, "%s-%d-%d", prefix, (int)getpid(), counter++) < 0) abort();
    return p;
}

/* ---- fault injection ----------------------------------------------------------------- */
const char *object_prefix(const char *path) {
    static char buf[2048];
    char *esc = url_escape(path);
    snprintf(buf, sizeof buf, "/v0/b/%s/o/%s", BUCKET, esc);
    free(esc);
    return buf;
}

static void fault_with(const emulator *e, fault_match m, const char *action) {
    char match[2048] = "";
    size_t n = 0;
#define ADD_FIELD(fmt, value) \
    if (value) n += (size_t)snprintf(match + n, sizeof match - n, "%s" fmt, n ? "," : "", value)
    ADD_FIELD("\"method\":\"%s\"", m.method);
    ADD_FIELD("\"path_prefix\":\"%s\"", m.path_prefix);
    ADD_FIELD("\"query_contains\":\"%s\"", m.query_part);
    ADD_FIELD("\"header\":{\"X-Goog-Upload-Command\":\"%s\"}", m.command);
#undef ADD_FIELD
    char *j = NULL;
    if (asprintf(&j, "{\"match\":{%s},\"times\":%d,\"action\":{%s}}", match, m.times > 0 ? m.times : 1, action) < 0)
        abort();
    emu_fault(e, j);
    free(j);
}

void emu_fault_status(const emulator *e, fault_match m, int status, int retry_after_s) {
    char a[96];
    if (retry_after_s > 0) snprintf(a, sizeof a, "\"status\":%d,\"retry_after\":%d", status, retry_after_s);
    else snprintf(a, sizeof a, "\"status\":%d", status);
    fault_with(e, m, a);
}

void emu_fault_drop(const emulator *e, fault_match m, long after_body_bytes) {
    char a[96];
    snprintf(a, sizeof a, "\"drop_after_bytes\":%ld", after_body_bytes);
    fault_with(e, m, a);
}

void emu_fault_delay(const emulator *e, fault_match m, int delay_ms) {
    char a[96];
    snprintf(a, sizeof a, "\"delay_ms\":%d", delay_ms);
    fault_with(e, m, a);
}
