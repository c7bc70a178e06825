/* harness.h — a tiny test harness for the fbstorage C tests.
 *
 * Tests register themselves with TEST(name). The runner (harness.c, main) starts the
 * emulator once per flavor, runs every test in a forked child (a crash or a hang fails one
 * test, not the run), and ends with "N passed, N failed". CHECKs record a failure and go
 * on; REQUIREs end the test. Environment:
 *   FBS_PYTHON          python that can `-m fbstorage.emulator` (default: python3)
 *   PYTHONPATH          where the fbstorage package lives (inherited by the emulator)
 *   FBS_TEST_FLAVORS    "production,firebase-tools" (default both)
 *   FBS_TEST_NOFORK=1   run tests in the runner process (for gdb / valgrind)
 * Arguments: substrings; only tests whose name contains one of them run.
 */
#ifndef FBS_TEST_HARNESS_H
#define FBS_TEST_HARNESS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fbstorage.h"

/* ---- registration -------------------------------------------------------------------- */
enum { TEST_NEEDS_EMULATOR = 0, TEST_NO_EMULATOR = 1 /* runs once, not per flavor */ };
typedef void (*test_fn)(void);
void harness_register(const char *name, test_fn fn, int flags, int timeout_s);

#define TEST_EX(name, flags, timeout_s)                                                    \
    static void name(void);                                                               \
    __attribute__((constructor)) static void register_##name(void) {                      \
        harness_register(#name, name, flags, timeout_s);                                  \
    }                                                                                     \
    static void name(void)
#define TEST(name) TEST_EX(name, TEST_NEEDS_EMULATOR, 60)
#define TEST_OFFLINE(name) TEST_EX(name, TEST_NO_EMULATOR, 30)

/* ---- checks -------------------------------------------------------------------------- */
void check_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void check_pass(void);
_Noreturn void test_abort(void);   /* ends the current test (already marked failed) */
void test_skip(const char *why);   /* notes a skipped case in the output */

#define CHECK(cond)                                                                        \
    ((cond) ? check_pass() : check_fail(__FILE__, __LINE__, "CHECK(%s)", #cond))
#define REQUIRE(cond)                                                                      \
    do { if (!(cond)) { check_fail(__FILE__, __LINE__, "REQUIRE(%s)", #cond); test_abort(); } \
         else check_pass(); } while (0)
#define CHECK_EQ_INT(a, b)                                                                 \
    do { long long a_ = (long long)(a), b_ = (long long)(b);                              \
         if (a_ == b_) check_pass();                                                       \
         else check_fail(__FILE__, __LINE__, "%s == %s: %lld != %lld", #a, #b, a_, b_); } while (0)
#define CHECK_STR(a, b)                                                                    \
    do { const char *a_ = (a), *b_ = (b);                                                  \
         if (str_equal(a_, b_)) check_pass();                                              \
         else check_fail(__FILE__, __LINE__, "%s == %s: \"%s\" != \"%s\"", #a, #b,         \
                         a_ ? a_ : "(null)", b_ ? b_ : "(null)"); } while (0)
/* call must return code; on failure codes, fbs_last_error_message() must be non-empty. */
#define CHECK_CODE(call, code) check_code((call), (code), #call, __FILE__, __LINE__)
#define REQUIRE_OK(call)                                                                   \
    do { if (!check_code((call), FBS_OK, #call, __FILE__, __LINE__)) test_abort(); } while (0)
int check_code(int got, int want, const char *expr, const char *file, int line);

int str_equal(const char *a, const char *b);   /* NULL-safe */

/* ---- the emulator -------------------------------------------------------------------- */
typedef struct emulator {
    int pid;
    char flavor[32];
    char host[64];
    int port;
    char base_url[128];   /* http://host:port */
    char log_path[512];
} emulator;

extern emulator *EMU;          /* the runner's emulator for the current flavor */
extern const char *BUCKET;     /* the bucket every test uses */

/* Starts `python -m fbstorage.emulator --host host --port 0 --flavor F extra_args...`
 * (extra_args NULL-terminated, may be NULL). Fails the test on error. */
int emulator_start(emulator *e, const char *flavor, const char *host, const char *const *extra_args);
void emulator_stop(emulator *e);

/* ---- HTTP (libcurl, for the control API and verification) ---------------------------- */
typedef struct http_response {
    long status;
    unsigned char *body;   /* NUL-terminated for convenience */
    size_t length;
    char *headers;         /* raw response header block */
} http_response;

/* headers: NULL-terminated "Name: value" list, may be NULL. Returns the status (0 on a
 * transport error). resp may be NULL; otherwise free it with http_response_free(). */
long http_request(const char *method, const char *url, const char *const *headers,
                  const void *body, size_t body_length, http_response *resp);
void http_response_free(http_response *r);
char *url_escape(const char *s);   /* caller frees */

/* Control API of the emulator (see emu.c for the endpoints). */
void emu_reset(const emulator *e);
/* Injects a fault; json is the fault description (see fixtures.c). Fails the test on error. */
void emu_fault(const emulator *e, const char *json);
/* Faults for the next `times` requests (FOREVER: all) with this method (NULL: any), this exact
 * X-Goog-Upload-Command (NULL: any; "upload" is a non-final chunk, "upload, finalize" the
 * last), a raw path starting with path_prefix and a raw query containing query_part (NULL: any).
 * The emulator's fault API: docs/emulator.md. */
#define FOREVER 1000000
typedef struct fault_match {
    const char *method, *command, *path_prefix, *query_part;
    int times;
} fault_match;
/* The raw path prefix of one object's v0 URL, e.g. "/v0/b/<bucket>/o/a%2Fb". Static buffer. */
const char *object_prefix(const char *path);
void emu_fault_status(const emulator *e, fault_match m, int status, int retry_after_s);
void emu_fault_drop(const emulator *e, fault_match m, long after_body_bytes);
void emu_fault_delay(const emulator *e, fault_match m, int delay_ms);
/* An ID token the emulator mints (POST /_emulator/tokens) for claims_json, a JSON object naming
 * the uid as user_id: signed in the production flavor, unsigned in firebase-tools'. Caller frees. */
char *emu_id_token(const emulator *e, const char *claims_json);
/* The Auth emulator's pending out-of-band code of `type` ("VERIFY_EMAIL", "EMAIL_SIGNIN", …) for
 * `email`, as GET /emulator/v1/projects/demo-project/oobCodes lists it: its `field` ("oobCode",
 * "oobLink"), the latest when several; NULL when none. Caller frees. */
char *emu_pending_oob(const emulator *e, const char *type, const char *email, const char *field);
/* Clears the faults ("faults") or the recorded requests ("requests"), keeping the objects. */
void emu_clear(const emulator *e, const char *what);
/* The recorded requests as JSON text; caller frees. */
char *emu_requests_json(const emulator *e);
/* Waits until the emulator handles no request (one of a paused or killed client may still be
 * on its way), so that what it stores and logs is final. Fails the test after timeout_ms. */
void emu_wait_idle(const emulator *e, int timeout_ms);
/* Object bytes as the server stores them (admin credential); NULL when missing. */
unsigned char *emu_fetch_object(const emulator *e, const char *path, size_t *length);
/* Uploads bytes as an object directly (admin credential), bypassing the library. */
void emu_put_object(const emulator *e, const char *path, const void *bytes, size_t length);

/* ---- data and files ------------------------------------------------------------------ */
unsigned char *random_bytes(size_t n, unsigned seed);   /* caller frees; n may be 0 */
/* A temp file holding bytes; returns its path (caller frees; the file is removed at exit). */
char *temp_file_with(const void *bytes, size_t n, const char *suffix);
char *temp_path(const char *suffix);   /* a fresh path that does not exist yet */
unsigned char *read_file(const char *path, size_t *length);   /* NULL when missing */
void md5_hex(const void *bytes, size_t n, char out[33]);
int bytes_equal(const void *a, size_t alen, const void *b, size_t blen);
double now_s(void);
void sleep_ms(int ms);
/* A local IPv4 address that is not loopback, or NULL (a static buffer). */
const char *non_loopback_address(void);

/* ---- library fixtures ---------------------------------------------------------------- */
fbs_storage *new_storage(void);   /* BUCKET, pointed at EMU */
fbs_reference *new_ref(fbs_storage *s, const char *path);
/* An auth (demo-project) on emulator e; a storage on e using it, retrying at most 10 s. */
fbs_auth *auth_for(const emulator *e);
fbs_storage *storage_using(const emulator *e, fbs_auth *auth);
/* Uploads with put_data and waits; returns the task's code. */
int upload_bytes(fbs_storage *s, const char *path, const void *bytes, size_t n);
/* Waits until task t has transferred at least `bytes`: 1, or 0 when it ended first or
 * timeout_ms passed. */
int wait_for_bytes(fbs_task *t, int64_t bytes, int timeout_ms);
/* A unique object path for this test: "<prefix>-<pid>-<counter>". caller frees. */
char *unique_path(const char *prefix);

#endif
