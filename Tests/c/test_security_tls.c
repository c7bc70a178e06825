/* test_security_tls.c — TLS peer and host verification are on by default: an https server
 * with a self-signed certificate is rejected at once with FBS_ERR_TLS (not retried), accepted
 * once that certificate is given with fbs_storage_set_ca_file(), and still rejected under a
 * host name the certificate does not name.
 *
 * The https server is Tests/support/fault_proxy.py terminating TLS in front of the emulator
 * (FBS_SUPPORT_DIR overrides that folder). The upload reaches it through its session URL
 * (fbs_reference_put_file_resuming() with a session started on the emulator, rewritten to the
 * TLS port), and every request through fbs_storage_use_endpoint("https://…"). Needs `openssl`.
 * (bindings/python/tests/test_tls.py covers expired certificates, SSL_CERT_FILE and more.) */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

#define KIB 1024
#define OBJECT "tls/object.bin"

typedef struct tls_server {
    pid_t pid;
    int stdin_fd;   /* closing it stops the proxy */
    int port;
    char cert[512], key[512];
} tls_server;

/* A self-signed certificate for DNS name "localhost" only (not for 127.0.0.1). */
static void make_certificate(tls_server *t) {
    char *cert = temp_path(".pem"), *key = temp_path(".key"), *command = NULL;
    snprintf(t->cert, sizeof t->cert, "%s", cert);
    snprintf(t->key, sizeof t->key, "%s", key);
    if (asprintf(&command, "openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=localhost "
                           "-addext subjectAltName=DNS:localhost -keyout '%s' -out '%s' 2>/dev/null",
                 key, cert) < 0) abort();
    int rc = system(command);
    if (rc != 0) check_fail(__FILE__, __LINE__, "openssl could not make a certificate (%d): is it installed?", rc);
    free(command);
    free(cert);
    free(key);
    REQUIRE(rc == 0);
}

static void start_tls_server(tls_server *t, int upstream_port) {
    make_certificate(t);
    const char *python = getenv("FBS_PYTHON") ? getenv("FBS_PYTHON") : "python3";
    const char *support = getenv("FBS_SUPPORT_DIR") ? getenv("FBS_SUPPORT_DIR") : "Tests/support";
    char script[512], upstream[64];
    snprintf(script, sizeof script, "%s/fault_proxy.py", support);
    snprintf(upstream, sizeof upstream, "127.0.0.1:%d", upstream_port);
    int in[2], out[2];
    REQUIRE(pipe(in) == 0 && pipe(out) == 0);
    fflush(stdout);
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        dup2(in[0], 0);
        dup2(out[1], 1);
        int devnull = open("/dev/null", O_WRONLY);   /* asyncio reports each rejected handshake */
        dup2(devnull, 2);
        close(in[1]);
        close(out[0]);
        execlp(python, python, script, "--upstream", upstream, "--tls-cert", t->cert, "--tls-key", t->key,
               (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    t->pid = pid;
    t->stdin_fd = in[1];
    char line[64] = "";
    FILE *f = fdopen(out[0], "r");
    REQUIRE(fgets(line, sizeof line, f) != NULL);
    fclose(f);
    REQUIRE(sscanf(line, "READY %d", &t->port) == 1);
}

static void stop_tls_server(tls_server *t) {
    close(t->stdin_fd);
    int status;
    waitpid(t->pid, &status, 0);
}

/* Starts a resumable session for OBJECT on the emulator; returns its upload URL's path and
 * query (caller frees). */
static char *start_session(size_t n) {
    char url[512], declared[96];
    snprintf(url, sizeof url, "%s/v0/b/%s/o?name=tls%%2Fobject.bin", EMU->base_url, BUCKET);
    snprintf(declared, sizeof declared, "X-Goog-Upload-Header-Content-Length: %zu", n);
    const char *headers[] = {"Authorization: Bearer owner", "X-Goog-Upload-Protocol: resumable",
                             "X-Goog-Upload-Command: start", "Content-Type: application/json", declared, NULL};
    http_response r;
    REQUIRE(http_request("POST", url, headers, "{}", 2, &r) == 200);
    char *location = strcasestr(r.headers, "\nX-Goog-Upload-URL: ");
    REQUIRE(location != NULL);
    location += strlen("\nX-Goog-Upload-URL: ");
    char *path = strstr(location, "/v0/");
    REQUIRE(path != NULL);
    char *result = strndup(path, strcspn(path, "\r\n"));
    http_response_free(&r);
    return result;
}

/* put_file_resuming through https://host:port<path>; returns the task's outcome. */
static int upload_over_tls(const char *ca_file, const char *host, int port, const char *path,
                           const char *file, size_t n, double *took) {
    fbs_storage *s = new_storage();
    REQUIRE_OK(fbs_storage_set_max_upload_retry_time(s, 10));
    REQUIRE_OK(fbs_storage_set_ca_file(s, ca_file));
    char *session = NULL;
    if (asprintf(&session, "{\"bucket\":\"%s\",\"object\":\"%s\",\"sessionURL\":\"https://%s:%d%s\",\"totalBytes\":%zu,\"v\":2,\"verifiedBytes\":0,\"verifiedCRC32C\":0}",
                 BUCKET, OBJECT, host, port, path, n) < 0) abort();
    fbs_reference *r = new_ref(s, OBJECT);
    fbs_task *t = NULL;
    double start = now_s();
    REQUIRE_OK(fbs_reference_put_file_resuming(r, file, session, NULL, &t));
    int rc = fbs_task_wait(t, 30000);
    *took = now_s() - start;
    fbs_task_free(t);
    fbs_reference_free(r);
    free(session);
    fbs_storage_free(s);
    return rc;
}

TEST(security_tls_verification) {
    tls_server tls;
    start_tls_server(&tls, EMU->port);
    size_t n = 600 * KIB;
    unsigned char *bytes = random_bytes(n, 91);
    char *file = temp_file_with(bytes, n, ".bin");
    char *path = start_session(n);
    double took;

    /* default trust store: the self-signed certificate is refused, and not retried */
    CHECK_CODE(upload_over_tls(NULL, "localhost", tls.port, path, file, n, &took), FBS_ERR_TLS);
    CHECK(strstr(fbs_last_error_message(), "certificate") != NULL);
    CHECK(took < 3);
    /* the right CA, but a host name the certificate does not name */
    CHECK_CODE(upload_over_tls(tls.cert, "127.0.0.1", tls.port, path, file, n, &took), FBS_ERR_TLS);
    CHECK(strstr(fbs_last_error_message(), "127.0.0.1") != NULL);
    CHECK(took < 3);
    size_t got_n = 0;
    unsigned char *got = emu_fetch_object(EMU, OBJECT, &got_n);
    CHECK(got == NULL);   /* nothing reached the server */
    free(got);
    /* the right CA and host */
    CHECK_CODE(upload_over_tls(tls.cert, "localhost", tls.port, path, file, n, &took), FBS_OK);
    got = emu_fetch_object(EMU, OBJECT, &got_n);
    CHECK(got && bytes_equal(got, got_n, bytes, n));
    free(got);

    stop_tls_server(&tls);
    free(path);
    free(file);
    free(bytes);
}

/* An https endpoint for every request: upload, list and download through the TLS proxy. */
TEST(security_tls_endpoint) {
    tls_server tls;
    start_tls_server(&tls, EMU->port);
    char endpoint[64];
    snprintf(endpoint, sizeof endpoint, "https://localhost:%d", tls.port);
    fbs_storage *s = new_storage();
    REQUIRE_OK(fbs_storage_use_endpoint(s, endpoint));
    REQUIRE_OK(fbs_storage_set_max_operation_retry_time(s, 10));
    fbs_reference *r = new_ref(s, "tls/endpoint.bin");
    fbs_list_result *listed = NULL;
    double start = now_s();
    CHECK_CODE(fbs_reference_list_all(r, &listed), FBS_ERR_TLS);   /* the system store does not know it */
    CHECK(now_s() - start < 3);
    REQUIRE_OK(fbs_storage_set_ca_file(s, tls.cert));
    /* multipart: a resumable session's URL would name the emulator's http scheme, as the TCP
     * proxy in front of it adds no X-Forwarded-Proto */
    size_t n = 200 * KIB;
    unsigned char *bytes = random_bytes(n, 92);
    fbs_task *t = NULL;
    REQUIRE_OK(fbs_reference_put_data(r, bytes, n, NULL, &t));
    CHECK_CODE(fbs_task_wait(t, 30000), FBS_OK);
    fbs_task_free(t);
    fbs_reference *folder = new_ref(s, "tls");
    REQUIRE_OK(fbs_reference_list_all(folder, &listed));
    CHECK_EQ_INT(fbs_list_result_item_count(listed), 1);
    fbs_list_result_free(listed);
    void *got = NULL;
    size_t got_n = 0;
    REQUIRE_OK(fbs_reference_get_data(r, (int64_t)n, &got, &got_n));
    CHECK(bytes_equal(got, got_n, bytes, n));
    fbs_data_free(got);
    fbs_reference_free(folder);
    fbs_reference_free(r);
    fbs_storage_free(s);
    stop_tls_server(&tls);
    free(bytes);
}
