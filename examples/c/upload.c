/* upload.c — upload a file with a live progress bar, pausing for a second midway.
 *
 *   upload FILE [--path OBJECT] [--bucket BUCKET] [--emulator HOST:PORT] [--sign-in] [--quiet]
 *
 * Talks to the emulator named by --emulator or FIREBASE_STORAGE_EMULATOR_HOST. With --sign-in it
 * first signs in anonymously (Firebase Auth on the same emulator, or FIREBASE_AUTH_EMULATOR_HOST),
 * uploads to users/<uid>/ by default, and at the end shows that another user's folder is refused.
 * Prints the object's metadata and download URL; exits non-zero on failure.
 * Build: cc -std=c11 upload.c $(pkg-config --cflags --libs fbstorage)
 */
#define _POSIX_C_SOURCE 200809L
#include <fbstorage.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdatomic.h>
#include <time.h>

/* Shared by the callback thread (observers) and the main thread: times in microseconds. */
typedef struct progress {
    long long started;
    _Atomic long long paused_for;      /* time spent paused, left out of the rate */
    _Atomic long long pause_started;   /* 0 while running */
    int paused_once, quiet;
    fbs_task *task;
} progress;

static long long now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void draw(const fbs_snapshot *s, progress *p, const char *state) {
    if (p->quiet) return;
    double done = (double)fbs_snapshot_bytes_transferred(s);
    double total = (double)fbs_snapshot_total_bytes(s);
    double elapsed = (double)(now_us() - p->started - p->paused_for) / 1e6;
    double rate = elapsed > 0 ? done / elapsed : 0;   /* bytes per second */
    double pct = total > 0 ? 100.0 * done / total : 0;
    int width = 30, filled = (int)(pct / 100.0 * width);
    char bar[64];
    for (int i = 0; i < width; i++) bar[i] = i < filled ? '#' : '.';
    bar[width] = 0;
    double eta = rate > 0 && total > done ? (total - done) / rate : 0;
    printf("\r[%s] %5.1f%%  %7.2f MiB/s  ETA %4.0fs  %-8s", bar, pct, rate / 1048576.0, eta, state);
    fflush(stdout);
}

static void on_progress(const fbs_snapshot *s, void *user) {
    progress *p = user;
    draw(s, p, "");
    int64_t total = fbs_snapshot_total_bytes(s);
    if (!p->paused_once && total > 0 && fbs_snapshot_bytes_transferred(s) * 2 >= total) {
        p->paused_once = 1;
        fbs_task_pause(p->task);   /* allowed from a callback; the PAUSE event follows */
    }
}

static void on_pause(const fbs_snapshot *s, void *user) {
    progress *p = user;
    p->pause_started = now_us();
    draw(s, p, "paused");
}

static void on_resume(const fbs_snapshot *s, void *user) {
    progress *p = user;
    long long since = p->pause_started;
    if (since > 0) { p->paused_for += now_us() - since; p->pause_started = 0; }
    draw(s, p, "");
}

static int fail(const char *what, int code) {
    fprintf(stderr, "\n%s failed: %s (%s)\n", what, fbs_last_error_message(), fbs_error_name(code));
    return 1;
}

static void print_metadata(const fbs_metadata *m) {
    printf("  name          %s\n", fbs_metadata_name(m));
    printf("  full path     %s\n", fbs_metadata_full_path(m));
    printf("  bucket        %s\n", fbs_metadata_bucket(m));
    printf("  size          %lld bytes\n", (long long)fbs_metadata_size(m));
    printf("  content type  %s\n", fbs_metadata_content_type(m) ? fbs_metadata_content_type(m) : "-");
    printf("  md5           %s\n", fbs_metadata_md5_hash(m) ? fbs_metadata_md5_hash(m) : "-");
    printf("  generation    %lld\n", (long long)fbs_metadata_generation(m));
    for (size_t i = 0; i < fbs_metadata_custom_count(m); i++) {
        const char *k = fbs_metadata_custom_key_at(m, i);
        printf("  custom        %s = %s\n", k, fbs_metadata_custom(m, k));
    }
}

int main(int argc, char **argv) {
    const char *file = NULL, *object = NULL, *bucket = "demo-project.appspot.com", *emulator = NULL;
    int quiet = 0, sign_in = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--path") && i + 1 < argc) object = argv[++i];
        else if (!strcmp(argv[i], "--bucket") && i + 1 < argc) bucket = argv[++i];
        else if (!strcmp(argv[i], "--emulator") && i + 1 < argc) emulator = argv[++i];
        else if (!strcmp(argv[i], "--quiet")) quiet = 1;
        else if (!strcmp(argv[i], "--sign-in")) sign_in = 1;
        else if (argv[i][0] != '-' && !file) file = argv[i];
        else {
            fprintf(stderr, "usage: %s FILE [--path OBJECT] [--bucket B] [--emulator HOST:PORT] [--sign-in] [--quiet]\n", argv[0]);
            return 2;
        }
    }
    if (!file) {
        fprintf(stderr, "usage: %s FILE [--path OBJECT] [--bucket B] [--emulator HOST:PORT] [--sign-in] [--quiet]\n", argv[0]);
        return 2;
    }

    fbs_storage *storage = NULL;
    int rc = fbs_storage_new(bucket, &storage);   /* reads FIREBASE_STORAGE_EMULATOR_HOST */
    if (rc) return fail("fbs_storage_new", rc);
    char host[256] = "";
    int port = 0;
    if (emulator) {
        const char *colon = strrchr(emulator, ':');
        if (!colon || colon == emulator || (size_t)(colon - emulator) >= sizeof host) {
            fprintf(stderr, "--emulator wants HOST:PORT\n");
            return 2;
        }
        snprintf(host, sizeof host, "%.*s", (int)(colon - emulator), emulator);
        port = atoi(colon + 1);
        if ((rc = fbs_storage_use_emulator(storage, host, port))) return fail("--emulator", rc);
    } else if (!getenv("FIREBASE_STORAGE_EMULATOR_HOST")) {
        fprintf(stderr, "note: no --emulator and no FIREBASE_STORAGE_EMULATOR_HOST: using production\n");
    }

    /* Signing in: the storage then sends the user's ID token, refreshed as it nears expiry. */
    fbs_auth *auth = NULL;
    char uid[256] = "";
    if (sign_in) {
        if ((rc = fbs_auth_new("demo-api-key", "demo-project", &auth))) return fail("fbs_auth_new", rc);   /* reads FIREBASE_AUTH_EMULATOR_HOST */
        if (port && (rc = fbs_auth_use_emulator(auth, host, port))) return fail("fbs_auth_use_emulator", rc);
        fbs_user *user = NULL;
        if ((rc = fbs_auth_sign_in_anonymously(auth, &user))) return fail("sign-in", rc);
        snprintf(uid, sizeof uid, "%s", fbs_user_uid(user));
        printf("signed in anonymously as %s (provider %s)\n", uid, fbs_user_sign_in_provider(user));
        fbs_user_free(user);
        if ((rc = fbs_storage_use_auth(storage, auth))) return fail("fbs_storage_use_auth", rc);
    }
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    char default_object[1100];
    if (!object) {   /* default: users/<uid>/<basename> signed in, else uploads/<basename> */
        if (sign_in) snprintf(default_object, sizeof default_object, "users/%s/%s", uid, base);
        else snprintf(default_object, sizeof default_object, "uploads/%s", base);
        object = default_object;
    }
    fbs_storage_set_upload_chunk_size(storage, 1 << 20);   /* more, smaller requests: a livelier bar */

    fbs_reference *ref = NULL;
    if ((rc = fbs_storage_reference(storage, object, &ref))) return fail("fbs_storage_reference", rc);
    progress p = {0};
    p.quiet = quiet;
    p.started = now_us();
    if ((rc = fbs_reference_put_file(ref, file, NULL, &p.task))) return fail("fbs_reference_put_file", rc);
    fbs_observer_handle h;
    fbs_task_observe(p.task, FBS_TASK_STATUS_PROGRESS, on_progress, &p, &h);
    fbs_task_observe(p.task, FBS_TASK_STATUS_PAUSE, on_pause, &p, &h);
    fbs_task_observe(p.task, FBS_TASK_STATUS_RESUME, on_resume, &p, &h);

    /* The PROGRESS observer pauses at 50%; here the main thread resumes after a second. */
    int status;
    while ((status = fbs_task_wait(p.task, 50)) == FBS_ERR_TIMEOUT) {
        long long since = p.pause_started;
        if (since > 0 && now_us() - since >= 1000000) fbs_task_resume(p.task);
    }
    if (status != FBS_OK) return fail("upload", status);
    fbs_snapshot *snap = NULL;
    fbs_task_snapshot(p.task, &snap);
    draw(snap, &p, "done");
    if (!quiet) printf("\n");
    printf("uploaded %s to gs://%s/%s in %.2f s\n", file, fbs_storage_bucket(storage), object,
           (double)(now_us() - p.started) / 1e6);
    print_metadata(fbs_snapshot_metadata(snap));
    fbs_snapshot_free(snap);

    char *url = NULL;
    if ((rc = fbs_reference_download_url(ref, &url))) return fail("fbs_reference_download_url", rc);
    printf("  download URL  %s\n", url);
    fbs_string_free(url);
    fbs_task_free(p.task);
    fbs_reference_free(ref);

    if (sign_in) {   /* the rules keep each user to its own folder */
        char other[1100];
        snprintf(other, sizeof other, "users/someone-else/%s", base);
        fbs_reference *theirs = NULL;
        fbs_task *attempt = NULL;
        if ((rc = fbs_storage_reference(storage, other, &theirs))) return fail("fbs_storage_reference", rc);
        if ((rc = fbs_reference_put_data(theirs, "x", 1, NULL, &attempt))) return fail("fbs_reference_put_data", rc);
        rc = fbs_task_wait(attempt, -1);
        printf("writing gs://%s/%s as %s: %s (%s)\n", fbs_storage_bucket(storage), other, uid,
               rc == FBS_OK ? "allowed" : "refused", rc == FBS_OK ? "the rules let everybody write" : fbs_error_name(rc));
        fbs_task_free(attempt);
        fbs_reference_free(theirs);
        if (rc != FBS_ERR_UNAUTHORIZED) return fail("the refused write", rc);
    }
    fbs_storage_free(storage);
    fbs_auth_free(auth);
    return 0;
}
