/* test_cut_responses.c — a response whose connection closes inside its head is a transport
 * failure, retried like any other, never a success with missing headers or body. (libcurl
 * accepts such a response as complete; the fault soak met it as "metadata that is not valid
 * JSON" and "the server cancelled the upload session".) */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "harness.h"

#define METADATA "{\"name\":\"cut/object.bin\",\"bucket\":\"cut.appspot.com\",\"size\":\"3\",\"generation\":\"1\"}"

/* Answers one request per connection: the first `cuts` with a head cut before its blank line,
 * then with the metadata above. */
typedef struct cutting_server {
    int fd, port, cuts, connections;
    pthread_t thread;
} cutting_server;

static void *serve(void *arg) {
    cutting_server *c = arg;
    for (;;) {
        int conn = accept(c->fd, NULL, NULL);
        if (conn < 0) return NULL;
        char request[4096];
        if (recv(conn, request, sizeof request, 0) <= 0) { close(conn); continue; }
        char reply[512];
        int cut = c->connections++ < c->cuts;
        int n = cut ? snprintf(reply, sizeof reply, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n")
                    : snprintf(reply, sizeof reply, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                                                    "Content-Length: %zu\r\n\r\n%s", strlen(METADATA), METADATA);
        if (send(conn, reply, (size_t)n, MSG_NOSIGNAL) < 0) { /* the client gave up: fine */ }
        close(conn);
    }
}

static void start_cutting_server(cutting_server *c, int cuts) {
    memset(c, 0, sizeof *c);
    c->cuts = cuts;
    c->fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    REQUIRE(c->fd >= 0 && bind(c->fd, (struct sockaddr *)&a, sizeof a) == 0 && listen(c->fd, 16) == 0);
    REQUIRE(getsockname(c->fd, (struct sockaddr *)&a, &len) == 0);
    c->port = ntohs(a.sin_port);
    REQUIRE(pthread_create(&c->thread, NULL, serve, c) == 0);
}

TEST_OFFLINE(cut_response_head_is_retried) {
    cutting_server server;
    start_cutting_server(&server, 2);
    fbs_storage *s = NULL;
    REQUIRE_OK(fbs_storage_new("cut.appspot.com", &s));
    REQUIRE_OK(fbs_storage_use_emulator(s, "127.0.0.1", server.port));
    fbs_reference *r = new_ref(s, "cut/object.bin");
    fbs_metadata *m = NULL;
    CHECK_CODE(fbs_reference_get_metadata(r, &m), FBS_OK);
    CHECK_EQ_INT(fbs_metadata_size(m), 3);
    CHECK_EQ_INT(server.connections, 3);   /* two cut heads, then the answer */
    fbs_metadata_free(m);
    fbs_reference_free(r);
    fbs_storage_free(s);
}
