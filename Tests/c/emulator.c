/* emulator.c — start/stop the bundled emulator as a child process. */
#define _GNU_SOURCE
#include "harness.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

extern char harness_tmpdir[256];

/* Emulators started by this process, stopped at exit (only by the process that started them:
 * forked test processes inherit the list and the atexit handler). */
static emulator *running[8];
static pid_t running_owner[8];

static void stop_all(void) {
    for (int i = 0; i < 8; i++)
        if (running[i] && running_owner[i] == getpid()) emulator_stop(running[i]);
}

static void track(emulator *e) {
    static int registered;
    if (!registered) { atexit(stop_all); registered = 1; }
    for (int i = 0; i < 8; i++)
        if (!running[i]) { running[i] = e; running_owner[i] = getpid(); return; }
}

static void untrack(emulator *e) {
    for (int i = 0; i < 8; i++)
        if (running[i] == e) running[i] = NULL;
}

/* Parses "READY http://HOST:PORT" from the log; 1 when found. */
static int parse_ready(emulator *e) {
    size_t n = 0;
    unsigned char *log = read_file(e->log_path, &n);
    if (!log) return 0;
    char *line = strstr((char *)log, "READY http://");
    int ok = 0;
    if (line) {
        char *url = line + 6, *end = strpbrk(url, " \r\n");
        if (end) {
            *end = 0;
            char *colon = strrchr(url + 7, ':');
            if (colon) {
                snprintf(e->base_url, sizeof e->base_url, "%s", url);
                snprintf(e->host, sizeof e->host, "%.*s", (int)(colon - (url + 7)), url + 7);
                e->port = atoi(colon + 1);
                ok = e->port > 0;
            }
        }
    }
    free(log);
    return ok;
}

int emulator_start(emulator *e, const char *flavor, const char *host, const char *const *extra_args) {
    static int serial;
    memset(e, 0, sizeof *e);
    snprintf(e->flavor, sizeof e->flavor, "%s", flavor);
    snprintf(e->log_path, sizeof e->log_path, "%s/emulator-%s-%d-%d.log", harness_tmpdir, flavor,
             (int)getpid(), serial++);
    const char *python = getenv("FBS_PYTHON") ? getenv("FBS_PYTHON") : "python3";
    /* The tests' bucket exists from the start, for the GCS API too (the production flavor's
     * GCS routes answer 404 for a bucket never created, configured or used through v0). */
    const char *argv[32] = {python, "-m", "fbstorage.emulator", "--host", host,
                            "--port", "0", "--flavor", flavor, "--bucket", BUCKET};
    int argc = 11;
    for (int i = 0; extra_args && extra_args[i] && argc < 31; i++) argv[argc++] = extra_args[i];
    argv[argc] = NULL;

    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        setpgid(0, 0);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        int fd = open(e->log_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) { dup2(fd, 1); dup2(fd, 2); close(fd); }
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0) { dup2(devnull, 0); close(devnull); }
        unsetenv("FIREBASE_STORAGE_EMULATOR_HOST");
        execvp(python, (char *const *)argv);
        perror("exec");
        _exit(127);
    }
    e->pid = pid;
    track(e);
    double deadline = now_s() + 30;
    while (now_s() < deadline) {
        if (parse_ready(e)) return 0;
        int status;
        if (waitpid(pid, &status, WNOHANG) == pid) {
            e->pid = 0;
            untrack(e);
            break;
        }
        sleep_ms(25);
    }
    size_t n = 0;
    unsigned char *log = read_file(e->log_path, &n);
    fprintf(stdout, "    emulator (%s %s) did not print READY; log:\n%s\n", python, flavor,
            log ? (char *)log : "(none)");
    free(log);
    emulator_stop(e);
    return -1;
}

void emulator_stop(emulator *e) {
    if (!e || e->pid <= 0) return;
    kill(-e->pid, SIGTERM);
    kill(e->pid, SIGTERM);
    double deadline = now_s() + 3;
    int status;
    while (waitpid(e->pid, &status, WNOHANG) == 0) {
        if (now_s() > deadline) {
            kill(-e->pid, SIGKILL);
            kill(e->pid, SIGKILL);
            waitpid(e->pid, &status, 0);
            break;
        }
        sleep_ms(10);
    }
    e->pid = 0;
    untrack(e);
}
