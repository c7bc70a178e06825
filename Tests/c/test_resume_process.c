/* test_resume_process.c — an upload killed with SIGKILL half-way (paused) is continued by another
 * process from its persisted session (fbs_task_upload_session → fbs_reference_put_file_
 * resuming): the object is byte-identical and only the bytes the server lacked are sent. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "reqlog.h"

#define KIB 1024
#define MIB (1024 * 1024)
#define CHUNK (256 * KIB)

/* The first process: uploads file, writes "PROGRESS <bytes>\n" (sent so far, the last chunk
 * possibly unconfirmed) until half is sent, then pauses, writes "SESSION <session>\n" (taken
 * once nothing more is read, so it vouches for every byte the server can have) and waits to be
 * killed. A session string taken earlier may vouch for less than the server has: the resume
 * then starts over (test_resume_checks.c). */
static _Noreturn void upload_and_report(const char *file, const char *path, long long half, int out) {
    fbs_storage *s = new_storage();
    REQUIRE_OK(fbs_storage_set_upload_chunk_size(s, CHUNK));
    fbs_reference *r = new_ref(s, path);
    fbs_task *t = NULL;
    REQUIRE_OK(fbs_reference_put_file(r, file, NULL, &t));
    for (long long sent = 0; sent < half; sleep_ms(5)) {
        fbs_snapshot *snap = NULL;
        REQUIRE_OK(fbs_task_snapshot(t, &snap));
        sent = fbs_snapshot_bytes_transferred(snap);
        fbs_snapshot_free(snap);
        dprintf(out, "PROGRESS %lld\n", sent);
    }
    REQUIRE_OK(fbs_task_pause(t));
    for (int paused = 0; !paused; sleep_ms(5)) {
        fbs_snapshot *snap = NULL;
        REQUIRE_OK(fbs_task_snapshot(t, &snap));
        paused = fbs_snapshot_status(snap) == FBS_TASK_STATUS_PAUSE;
        fbs_snapshot_free(snap);
    }
    char *session = NULL;
    REQUIRE_OK(fbs_task_upload_session(t, &session));
    dprintf(out, "SESSION %s\n", session ? session : "");
    for (;;) pause();
}

/* Reads the child's reports until its session; returns it and the last progress. */
static char *read_reports(FILE *in, long long *progress) {
    char *line = NULL, *session = NULL;
    size_t cap = 0;
    *progress = 0;
    while (!session && getline(&line, &cap, in) > 0) {
        if (!strncmp(line, "SESSION ", 8)) session = strndup(line + 8, strcspn(line + 8, "\n"));
        else if (!strncmp(line, "PROGRESS ", 9)) *progress = atoll(line + 9);
    }
    free(line);
    return session;
}

TEST_EX(resume_upload_in_new_process, TEST_NEEDS_EMULATOR, 90) {
    const size_t n = 6 * MIB + 12345;
    unsigned char *bytes = random_bytes(n, 61);
    char *file = temp_file_with(bytes, n, ".bin");
    char *path = unique_path("resume/killed");
    emu_fault_delay(EMU, (fault_match){NULL, "upload", NULL, NULL, FOREVER}, 100);   /* ~0.1 s per chunk */
    int pipefd[2];
    REQUIRE(pipe(pipefd) == 0);
    fflush(stdout);
    pid_t child = fork();   /* this process has no storage yet: the child can make one */
    REQUIRE(child >= 0);
    if (child == 0) {
        close(pipefd[0]);
        upload_and_report(file, path, (long long)n / 2, pipefd[1]);
    }
    close(pipefd[1]);
    FILE *reports = fdopen(pipefd[0], "r");
    long long progress = 0;
    char *session = read_reports(reports, &progress);
    kill(child, SIGKILL);
    int status;
    waitpid(child, &status, 0);
    fclose(reports);
    REQUIRE(session != NULL && session[0] == '{');
    REQUIRE(progress >= (long long)n / 2);
    REQUIRE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    emu_clear(EMU, "faults");
    emu_wait_idle(EMU, 10000);   /* the chunk sent before the pause lands now, not during the resume */
    emu_clear(EMU, "requests");

    fbs_storage *s = new_storage();
    REQUIRE_OK(fbs_storage_set_upload_chunk_size(s, CHUNK));
    fbs_reference *r = new_ref(s, path);
    fbs_task *t = NULL;
    REQUIRE_OK(fbs_reference_put_file_resuming(r, file, session, NULL, &t));
    CHECK_CODE(fbs_task_wait(t, 60000), FBS_OK);
    size_t got_n = 0;
    unsigned char *got = emu_fetch_object(EMU, path, &got_n);
    CHECK(got && bytes_equal(got, got_n, bytes, n));

    reqlog log;
    reqlog_fetch(EMU, &log);
    long long sent = 0;
    for (size_t i = 0; i < log.count; i++)
        if (strstr(log.items[i].command, "upload")) sent += log.items[i].body_bytes;
    CHECK_EQ_INT(reqlog_count(&log, NULL, NULL, "start"), 0);   /* continued, not started over */
    CHECK(reqlog_count(&log, NULL, NULL, "query") >= 1);
    /* at most the chunk in flight at the kill is sent again */
    if (sent > 0 && sent <= (long long)n - progress + CHUNK) check_pass();
    else check_fail(__FILE__, __LINE__, "sent %lld bytes after %lld of %zu had gone out", sent, progress, n);
    printf("    resumed in a new process: %lld of %zu bytes had gone out before SIGKILL; %lld sent after "
           "(a restart sends %zu)\n", progress, n, sent, n);
    reqlog_free(&log);
    free(got);
    fbs_task_free(t);
    fbs_reference_free(r);
    fbs_storage_free(s);
    free(session);
    free(path);
    free(file);
    free(bytes);
}
