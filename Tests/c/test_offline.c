/* test_offline.c — with the server down or silent, uploads and operations fail within the
 * deadline the caller set, with an error naming the cause (no ten-minute hang). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "events.h"

#define KIB 1024
#define DEADLINE_S 3.0
#define SLACK_S 2.5   /* the last attempt may start just before the deadline and time out after it */

/* A listening socket on 127.0.0.1 that never accepts: connections complete in the kernel's
 * backlog and then hear nothing. With listening = 0 the socket is closed: the port refuses. */
static int loopback_port(int listening, int *fd_out) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    REQUIRE(fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0);
    REQUIRE(listen(fd, 64) == 0 && getsockname(fd, (struct sockaddr *)&a, &len) == 0);
    if (!listening) { close(fd); fd = -1; }
    *fd_out = fd;
    return ntohs(a.sin_port);
}

static fbs_storage *storage_at(int port) {
    fbs_storage *s = NULL;
    REQUIRE_OK(fbs_storage_new("offline.appspot.com", &s));
    REQUIRE_OK(fbs_storage_use_emulator(s, "127.0.0.1", port));
    REQUIRE_OK(fbs_storage_set_max_upload_retry_time(s, DEADLINE_S));
    REQUIRE_OK(fbs_storage_set_max_operation_retry_time(s, DEADLINE_S));
    REQUIRE_OK(fbs_storage_set_upload_chunk_size(s, 256 * KIB));
    return s;
}

/* An upload of n bytes fails with RETRY_LIMIT_EXCEEDED within the deadline, naming `cause`. */
static void upload_fails_in_time(fbs_storage *s, size_t n, const char *cause) {
    unsigned char *bytes = random_bytes(n, 71);
    fbs_reference *r = new_ref(s, "offline/object.bin");
    fbs_task *t = NULL;
    double start = now_s();
    REQUIRE_OK(fbs_reference_put_data(r, bytes, n, NULL, &t));
    int rc = fbs_task_wait(t, 60000);
    double took = now_s() - start;
    CHECK_EQ_INT(rc, FBS_ERR_RETRY_LIMIT_EXCEEDED);
    const char *message = fbs_last_error_message();
    if (strstr(message, cause)) check_pass();
    else check_fail(__FILE__, __LINE__, "%zu bytes: the message \"%s\" does not name \"%s\"", n, message, cause);
    if (took <= DEADLINE_S + SLACK_S) check_pass();
    else check_fail(__FILE__, __LINE__, "%zu bytes: failed after %.1f s with a %.0f s deadline", n, took, DEADLINE_S);
    fbs_task_free(t);
    fbs_reference_free(r);
    free(bytes);
}

TEST_OFFLINE(offline_refused_upload_fails_within_deadline) {
    int fd;
    fbs_storage *s = storage_at(loopback_port(0, &fd));
    upload_fails_in_time(s, 10 * KIB, "connect");     /* multipart */
    upload_fails_in_time(s, 700 * KIB, "connect");    /* resumable start */
    fbs_storage_free(s);
}

TEST_OFFLINE(offline_silent_server_upload_fails_within_deadline) {
    int fd;
    fbs_storage *s = storage_at(loopback_port(1, &fd));
    upload_fails_in_time(s, 10 * KIB, "Network error");
    upload_fails_in_time(s, 700 * KIB, "Network error");
    fbs_storage_free(s);
    close(fd);
}

TEST_OFFLINE(offline_operation_fails_within_deadline) {
    int fd;
    fbs_storage *s = storage_at(loopback_port(1, &fd));
    fbs_reference *r = new_ref(s, "offline/object.bin");
    fbs_metadata *m = NULL;
    double start = now_s();
    CHECK_CODE(fbs_reference_get_metadata(r, &m), FBS_ERR_RETRY_LIMIT_EXCEEDED);
    CHECK(strstr(fbs_last_error_message(), "Network error") != NULL);
    CHECK(now_s() - start <= DEADLINE_S + SLACK_S);
    fbs_reference_free(r);
    fbs_storage_free(s);
    close(fd);
}

/* The server goes away after the first chunk: the upload fails within the deadline of its
 * last progress instead of waiting for the 600 s default. */
TEST_EX(offline_server_stops_mid_upload, TEST_NO_EMULATOR, 60) {
    emulator e;
    REQUIRE(emulator_start(&e, "production", "127.0.0.1", NULL) == 0);
    fbs_storage *s = storage_at(e.port);
    emu_fault_delay(&e, (fault_match){NULL, "upload", NULL, NULL, FOREVER}, 300);
    size_t n = 4096 * KIB;
    unsigned char *bytes = random_bytes(n, 72);
    fbs_reference *r = new_ref(s, "offline/stops.bin");
    fbs_task *t = NULL;
    event_log log;
    event_log_init(&log);
    REQUIRE_OK(fbs_reference_put_data(r, bytes, n, NULL, &t));
    observe(t, FBS_TASK_STATUS_FAILURE, &log);
    (void)wait_for_bytes(t, 256 * KIB, 20000);   /* a chunk confirmed */
    emulator_stop(&e);
    double stopped = now_s();
    CHECK_CODE(fbs_task_wait(t, 30000), FBS_ERR_RETRY_LIMIT_EXCEEDED);
    double took = now_s() - stopped;
    if (took <= DEADLINE_S + SLACK_S) check_pass();
    else check_fail(__FILE__, __LINE__, "failed %.1f s after the server stopped (deadline %.0f s)", took, DEADLINE_S);
    CHECK(event_log_wait(&log, FBS_TASK_STATUS_FAILURE, 1000));
    fbs_task_free(t);
    fbs_reference_free(r);
    free(bytes);
    fbs_storage_free(s);
}

/* With the default deadlines (10 min for uploads, 2 for operations), a loopback port where
 * nothing listens fails within a few seconds, naming the address; the address's source is named
 * when it came from FIREBASE_STORAGE_EMULATOR_HOST. */
TEST_OFFLINE(offline_nothing_listening_on_loopback_fails_in_seconds) {
    int fd;
    int port = loopback_port(0, &fd);
    char address[32], variable[80];
    snprintf(address, sizeof address, "127.0.0.1:%d", port);
    snprintf(variable, sizeof variable, "FIREBASE_STORAGE_EMULATOR_HOST=%s", address);
    for (int from_environment = 0; from_environment < 2; from_environment++) {
        fbs_storage *s = NULL;
        if (from_environment) putenv(variable);
        REQUIRE_OK(fbs_storage_new("offline.appspot.com", &s));
        if (from_environment) unsetenv("FIREBASE_STORAGE_EMULATOR_HOST");
        else REQUIRE_OK(fbs_storage_use_emulator(s, "127.0.0.1", port));
        fbs_reference *r = new_ref(s, "offline/object.bin");
        unsigned char *bytes = random_bytes(700 * KIB, 73);
        double start = now_s();
        fbs_task *t = NULL;
        REQUIRE_OK(fbs_reference_put_data(r, bytes, 700 * KIB, NULL, &t));
        CHECK_CODE(fbs_task_wait(t, 60000), FBS_ERR_RETRY_LIMIT_EXCEEDED);
        CHECK(strstr(fbs_last_error_message(), address) != NULL);
        CHECK((strstr(fbs_last_error_message(), "FIREBASE_STORAGE_EMULATOR_HOST") != NULL) == from_environment);
        fbs_metadata *m = NULL;
        CHECK_CODE(fbs_reference_get_metadata(r, &m), FBS_ERR_RETRY_LIMIT_EXCEEDED);
        CHECK(strstr(fbs_last_error_message(), "Nothing is listening") != NULL);
        char *path = temp_path(".bin");
        fbs_task *download = NULL;
        REQUIRE_OK(fbs_reference_write_to_file(r, path, &download));
        CHECK_CODE(fbs_task_wait(download, 60000), FBS_ERR_RETRY_LIMIT_EXCEEDED);
        double took = now_s() - start;
        if (took < 3 * 4.0) check_pass();
        else check_fail(__FILE__, __LINE__, "three failures took %.1f s", took);
        fbs_task_free(download);
        fbs_task_free(t);
        free(path);
        free(bytes);
        fbs_reference_free(r);
        fbs_storage_free(s);
    }
}
