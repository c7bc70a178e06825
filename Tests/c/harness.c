/* harness.c — test registry, checks and the runner (see harness.h). */
#define _GNU_SOURCE
#include "harness.h"
#include "events.h"

#include <errno.h>
#include <ftw.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

typedef struct test_case {
    const char *name;
    test_fn fn;
    int flags;
    int timeout_s;
} test_case;

static test_case tests[256];
static int test_count;

/* Counters shared with forked test processes. */
typedef struct counters {
    long checks_passed, checks_failed, skips, code_checks;
    int current_failed;
} counters;
static counters *shared;

static int nofork;
static jmp_buf abort_jump;
static char current_name[160];

emulator *EMU;
const char *BUCKET = "fbs-test.appspot.com";
char harness_tmpdir[256];

void harness_register(const char *name, test_fn fn, int flags, int timeout_s) {
    if (test_count == (int)(sizeof tests / sizeof tests[0])) {
        fprintf(stderr, "too many tests\n");
        exit(2);
    }
    tests[test_count++] = (test_case){name, fn, flags, timeout_s};
}

/* ---- checks -------------------------------------------------------------------------- */
void check_pass(void) { __atomic_add_fetch(&shared->checks_passed, 1, __ATOMIC_RELAXED); }

void check_fail(const char *file, int line, const char *fmt, ...) {
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    __atomic_add_fetch(&shared->checks_failed, 1, __ATOMIC_RELAXED);
    shared->current_failed = 1;
    const char *base = strrchr(file, '/');
    fprintf(stdout, "    %s: %s:%d: %s\n", current_name, base ? base + 1 : file, line, msg);
    fflush(stdout);
}

_Noreturn void test_abort(void) {
    shared->current_failed = 1;
    if (nofork) longjmp(abort_jump, 1);
    fflush(stdout);
    exit(1);
}

void test_skip(const char *why) {
    __atomic_add_fetch(&shared->skips, 1, __ATOMIC_RELAXED);
    fprintf(stdout, "    %s: skipped case: %s\n", current_name, why);
    fflush(stdout);
}

int str_equal(const char *a, const char *b) {
    if (!a || !b) return a == b;
    return strcmp(a, b) == 0;
}

int check_code(int got, int want, const char *expr, const char *file, int line) {
    __atomic_add_fetch(&shared->code_checks, 1, __ATOMIC_RELAXED);
    const char *msg = fbs_last_error_message();
    if (got != want) {
        check_fail(file, line, "%s returned %s (%d), expected %s (%d); message: \"%s\"", expr,
                   fbs_error_name(got), got, fbs_error_name(want), want, msg ? msg : "(NULL)");
        return 0;
    }
    if (want != FBS_OK && (!msg || !*msg)) {
        check_fail(file, line, "%s returned %s but fbs_last_error_message() is empty", expr,
                   fbs_error_name(want));
        return 0;
    }
    check_pass();
    return 1;
}

/* ---- runner -------------------------------------------------------------------------- */
static int selected(const char *name, int argc, char **argv) {
    if (argc <= 1) return 1;
    for (int i = 1; i < argc; i++)
        if (strstr(name, argv[i])) return 1;
    return 0;
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
    (void)sb; (void)flag; (void)ftw;
    remove(path);
    return 0;
}

static pid_t tmpdir_owner;
static void remove_tmpdir(void) {
    if (harness_tmpdir[0] && getpid() == tmpdir_owner)
        nftw(harness_tmpdir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* A forked test runs on a fresh thread. The Swift runtime caches each thread's id for its
 * locks, and the forking thread keeps the parent's id in the child: a runtime lock it takes
 * can never be released once another thread waits for it (about one forked test in 100 hung
 * under ASan). main_thread is the test's thread, the one callbacks must not run on. */
static void *run_test_thread(void *arg) {
    main_thread = pthread_self();
    ((const test_case *)arg)->fn();
    return NULL;
}

/* Runs one test; returns 0 pass, 1 fail. */
static int run_one(const test_case *t, const char *flavor) {
    snprintf(current_name, sizeof current_name, "%s/%s", flavor, t->name);
    shared->current_failed = 0;
    long failed_before = shared->checks_failed;
    double start = now_s();
    const char *verdict = NULL;
    char why[96] = "";
    if (EMU && !(t->flags & TEST_NO_EMULATOR)) emu_reset(EMU);
    fflush(stdout);
    if (nofork) {
        if (setjmp(abort_jump) == 0) t->fn();
    } else {
        pid_t pid = fork();
        if (pid < 0) { perror("fork"); exit(2); }
        if (pid == 0) {
            pthread_t thread;
            if (pthread_create(&thread, NULL, run_test_thread, (void *)t) != 0) { perror("pthread_create"); exit(2); }
            pthread_join(thread, NULL);
            fflush(stdout);
            exit(shared->current_failed ? 1 : 0);
        }
        int status = 0;
        for (;;) {
            pid_t r = waitpid(pid, &status, WNOHANG);
            if (r == pid) break;
            if (now_s() - start > t->timeout_s) {
                kill(pid, SIGKILL);
                waitpid(pid, &status, 0);
                snprintf(why, sizeof why, "timed out after %d s", t->timeout_s);
                shared->current_failed = 1;
                break;
            }
            sleep_ms(10);
        }
        if (!why[0] && WIFSIGNALED(status)) {
            snprintf(why, sizeof why, "crashed with signal %d (%s)", WTERMSIG(status),
                     strsignal(WTERMSIG(status)));
            shared->current_failed = 1;
        } else if (!why[0] && WIFEXITED(status) && WEXITSTATUS(status) != 0) {
            shared->current_failed = 1;
        }
    }
    int failed = shared->current_failed || shared->checks_failed != failed_before;
    verdict = failed ? "FAIL" : "ok  ";
    printf("%s %s (%.1f s)%s%s\n", verdict, current_name, now_s() - start, why[0] ? " " : "", why);
    fflush(stdout);
    return failed;
}

static void on_signal(int sig) {
    signal(sig, SIG_DFL);
    exit(128 + sig);   /* runs atexit: stops emulators, removes temp files */
}

int main(int argc, char **argv) {
    shared = mmap(NULL, sizeof *shared, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shared == MAP_FAILED) { perror("mmap"); return 2; }
    nofork = getenv("FBS_TEST_NOFORK") && atoi(getenv("FBS_TEST_NOFORK"));
    setvbuf(stdout, NULL, _IOLBF, 0);
    curl_global_init(CURL_GLOBAL_DEFAULT);
    snprintf(harness_tmpdir, sizeof harness_tmpdir, "%s/fbs-ctest-XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(harness_tmpdir)) { perror("mkdtemp"); return 2; }
    tmpdir_owner = getpid();   /* forked tests inherit the atexit handler: only the runner removes */
    atexit(remove_tmpdir);
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    signal(SIGPIPE, SIG_IGN);

    int passed = 0, failed = 0, online = 0;
    for (int i = 0; i < test_count; i++)
        if (!(tests[i].flags & TEST_NO_EMULATOR) && selected(tests[i].name, argc, argv)) online++;
    for (int i = 0; i < test_count; i++) {
        if (!(tests[i].flags & TEST_NO_EMULATOR) || !selected(tests[i].name, argc, argv)) continue;
        if (run_one(&tests[i], "offline")) failed++; else passed++;
    }
    const char *flavors = getenv("FBS_TEST_FLAVORS");
    char flavor_list[128];
    snprintf(flavor_list, sizeof flavor_list, "%s", flavors ? flavors : "production,firebase-tools");
    char *save = NULL;
    for (char *f = strtok_r(flavor_list, ",", &save); online && f; f = strtok_r(NULL, ",", &save)) {
        static emulator emu;
        if (emulator_start(&emu, f, "127.0.0.1", NULL) != 0) {
            printf("FAIL %s: the emulator did not start (log: %s)\n", f, emu.log_path);
            failed += online;
            continue;
        }
        EMU = &emu;
        printf("# flavor %s: emulator at %s\n", f, emu.base_url);
        for (int i = 0; i < test_count; i++) {
            if ((tests[i].flags & TEST_NO_EMULATOR) || !selected(tests[i].name, argc, argv)) continue;
            if (run_one(&tests[i], f)) failed++; else passed++;
        }
        emulator_stop(&emu);
        EMU = NULL;
    }
    printf("# %ld checks passed (%ld of them return-code cases), %ld checks failed, %ld skipped cases\n",
           shared->checks_passed, shared->code_checks, shared->checks_failed, shared->skips);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
