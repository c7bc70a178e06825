/* curl_put_many.c — the raw libcurl floor of the small-objects workload.
 *
 *   curl_put_many HOST:PORT BUCKET PREFIX COUNT SIZE IN_FLIGHT
 *
 * Sends the multipart POSTs fbstorage's put_data sends (same URL, headers and body layout,
 * a fresh boundary per request) for COUNT objects PREFIX/00000.. of SIZE bytes, through one
 * curl multi handle with IN_FLIGHT easy handles reused over keep-alive connections, and
 * prints {"seconds": S, "work_cpu_seconds": C} as put_many does. No metadata parsing, no checksums, no tasks: the least a client can
 * do over libcurl, which fbstorage's CPU per object is compared with.
 */
#define _POSIX_C_SOURCE 200809L
#include <curl/curl.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
    CURL *easy;
    struct curl_slist *headers;
    char *body;
} slot;

static double clock_s(clockid_t clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static size_t discard(char *data, size_t size, size_t count, void *unused) {
    (void)data, (void)unused;
    return size * count;
}

/* Points s at object n: URL, boundary header and the multipart body around payload. */
static int prepare(slot *s, const char *address, const char *bucket, const char *prefix, long n,
                   const unsigned char *payload, size_t size) {
    char boundary[33], path[512], url[1024], content_type[96];
    snprintf(boundary, sizeof boundary, "%08x%08x%08x%08x", (unsigned)rand(), (unsigned)rand(),
             (unsigned)rand(), (unsigned)rand());
    snprintf(path, sizeof path, "%s/%05ld", prefix, n);
    char *escaped = curl_easy_escape(s->easy, path, 0);
    snprintf(url, sizeof url, "http://%s/v0/b/%s/o?name=%s", address, bucket, escaped);
    curl_free(escaped);
    snprintf(content_type, sizeof content_type, "Content-Type: multipart/related; boundary=%s", boundary);

    curl_slist_free_all(s->headers);
    /* "Expect:" drops libcurl's Expect: 100-continue (a round trip per POST), as fbstorage does. */
    s->headers = curl_slist_append(curl_slist_append(curl_slist_append(
        NULL, "X-Goog-Upload-Protocol: multipart"), content_type), "Expect:");
    free(s->body);
    size_t room = size + 512 + strlen(path);
    if (!s->headers || !(s->body = malloc(room))) return 1;
    int head = snprintf(s->body, room,
                        "--%s\r\nContent-Type: application/json; charset=utf-8\r\n\r\n"
                        "{\"name\":\"%s\",\"contentType\":\"application/octet-stream\"}\r\n"
                        "--%s\r\nContent-Type: application/octet-stream\r\n\r\n",
                        boundary, path, boundary);
    memcpy(s->body + head, payload, size);
    int tail = snprintf(s->body + head + size, room - head - size, "\r\n--%s--", boundary);

    curl_easy_setopt(s->easy, CURLOPT_URL, url);
    curl_easy_setopt(s->easy, CURLOPT_HTTPHEADER, s->headers);
    curl_easy_setopt(s->easy, CURLOPT_POSTFIELDS, s->body);
    curl_easy_setopt(s->easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)(head + size + tail));
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 7) {
        fprintf(stderr, "usage: %s HOST:PORT BUCKET PREFIX COUNT SIZE IN_FLIGHT\n", argv[0]);
        return 2;
    }
    const char *address = argv[1], *bucket = argv[2], *prefix = argv[3];
    long count = atol(argv[4]), in_flight = atol(argv[6]);
    size_t size = (size_t)atol(argv[5]);
    if (count < 1 || in_flight < 1) return 2;
    unsigned char *payload = malloc(size + 1);
    slot *slots = calloc((size_t)in_flight, sizeof *slots);
    if (!payload || !slots || curl_global_init(CURL_GLOBAL_DEFAULT)) return 1;
    for (size_t i = 0; i < size; i++) payload[i] = (unsigned char)rand();

    CURLM *multi = curl_multi_init();
    double started = clock_s(CLOCK_MONOTONIC), cpu_started = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    long next = 0, done = 0;
    for (long i = 0; i < in_flight && next < count; i++, next++) {
        slots[i].easy = curl_easy_init();
        curl_easy_setopt(slots[i].easy, CURLOPT_WRITEFUNCTION, discard);
        curl_easy_setopt(slots[i].easy, CURLOPT_PRIVATE, &slots[i]);
        if (prepare(&slots[i], address, bucket, prefix, next, payload, size)) return 1;
        curl_multi_add_handle(multi, slots[i].easy);
    }
    while (done < count) {
        int running;
        if (curl_multi_perform(multi, &running)) return 1;
        CURLMsg *message;
        int left;
        while ((message = curl_multi_info_read(multi, &left))) {
            if (message->msg != CURLMSG_DONE) continue;
            long status = 0;
            slot *s;
            curl_easy_getinfo(message->easy_handle, CURLINFO_RESPONSE_CODE, &status);
            curl_easy_getinfo(message->easy_handle, CURLINFO_PRIVATE, (char **)&s);
            if (message->data.result != CURLE_OK || status != 200) {
                fprintf(stderr, "upload: %s, HTTP %ld\n", curl_easy_strerror(message->data.result), status);
                return 1;
            }
            done++;
            curl_multi_remove_handle(multi, s->easy);
            if (next < count) {   /* the same handle, so its connection is reused */
                if (prepare(s, address, bucket, prefix, next++, payload, size)) return 1;
                curl_multi_add_handle(multi, s->easy);
            }
        }
        /* Waits only after finished transfers were read and their handles re-added. */
        if (done < count && curl_multi_poll(multi, NULL, 0, 1000, NULL)) return 1;
    }
    printf("{\"seconds\": %.6f, \"work_cpu_seconds\": %.6f}\n", clock_s(CLOCK_MONOTONIC) - started,
           clock_s(CLOCK_PROCESS_CPUTIME_ID) - cpu_started);

    for (long i = 0; i < in_flight; i++) {
        if (slots[i].easy) curl_easy_cleanup(slots[i].easy);
        curl_slist_free_all(slots[i].headers);
        free(slots[i].body);
    }
    curl_multi_cleanup(multi);
    curl_global_cleanup();
    free(slots);
    free(payload);
    return 0;
}
