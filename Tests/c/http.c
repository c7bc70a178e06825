/* http.c — plain libcurl requests for the emulator's control API and for verification. */
#define _GNU_SOURCE
#include "harness.h"

#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

typedef struct buffer {
    unsigned char *data;
    size_t length, capacity;
} buffer;

/* Grows the buffer geometrically: sanitizer allocators copy on every realloc, and growing by
 * each 16 KiB piece made a 50 MiB download quadratic (over a minute under TSan). */
static size_t append(char *ptr, size_t size, size_t n, void *userdata) {
    buffer *b = userdata;
    size_t add = size * n;
    if (b->length + add + 1 > b->capacity) {
        size_t capacity = b->capacity ? b->capacity : 4096;
        while (capacity < b->length + add + 1) capacity *= 2;
        unsigned char *grown = realloc(b->data, capacity);
        if (!grown) return 0;
        b->data = grown;
        b->capacity = capacity;
    }
    memcpy(b->data + b->length, ptr, add);
    b->length += add;
    b->data[b->length] = 0;
    return add;
}

long http_request(const char *method, const char *url, const char *const *headers,
                  const void *body, size_t body_length, http_response *resp) {
    CURL *c = curl_easy_init();
    if (!c) return 0;
    buffer out = {0}, head = {0};
    struct curl_slist *list = curl_slist_append(NULL, "Expect:");
    for (int i = 0; headers && headers[i]; i++) list = curl_slist_append(list, headers[i]);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, list);
    curl_easy_setopt(c, CURLOPT_NOPROXY, "*");
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 60L);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, append);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &out);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, append);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, &head);
    if (body || strcmp(method, "POST") == 0 || strcmp(method, "PUT") == 0) {
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body ? body : "");
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)body_length);
    }
    long status = 0;
    if (curl_easy_perform(c) == CURLE_OK) curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    curl_slist_free_all(list);
    curl_easy_cleanup(c);
    if (resp) {
        resp->status = status;
        resp->body = out.data ? out.data : calloc(1, 1);
        resp->length = out.length;
        resp->headers = head.data ? (char *)head.data : calloc(1, 1);
    } else {
        free(out.data);
        free(head.data);
    }
    return status;
}

void http_response_free(http_response *r) {
    if (!r) return;
    free(r->body);
    free(r->headers);
    r->body = NULL;
    r->headers = NULL;
}

char *url_escape(const char *s) {
    CURL *c = curl_easy_init();
    char *e = curl_easy_escape(c, s, 0);
    char *copy = strdup(e);
    curl_free(e);
    curl_easy_cleanup(c);
    return copy;
}
