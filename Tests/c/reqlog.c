/* reqlog.c — decodes the emulator's request log (see reqlog.h). */
#define _GNU_SOURCE
#include "reqlog.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "json.h"

/* A header value from {"Name": "v"} (any case) or [["Name","v"], ...]. */
static const char *header(const json *headers, const char *name) {
    if (!headers) return NULL;
    for (size_t i = 0; i < headers->count; i++) {
        const json *h = &headers->children[i];
        if (headers->type == JSON_OBJECT && h->key && strcasecmp(h->key, name) == 0)
            return json_str(h) ? json_str(h) : "";
        if (headers->type == JSON_ARRAY && h->type == JSON_ARRAY && h->count == 2 &&
            json_str(&h->children[0]) && strcasecmp(json_str(&h->children[0]), name) == 0)
            return json_str(&h->children[1]);
    }
    return NULL;
}

static const json *first_of(const json *o, const char *a, const char *b, const char *c) {
    const json *v = json_get(o, a);
    if (!v && b) v = json_get(o, b);
    if (!v && c) v = json_get(o, c);
    return v;
}

void reqlog_fetch(const emulator *e, reqlog *out) {
    memset(out, 0, sizeof *out);
    char *text = emu_requests_json(e);
    json *root = json_parse(text);
    if (!root) {
        check_fail(__FILE__, __LINE__, "request log is not JSON: %.200s", text ? text : "(null)");
        free(text);
        return;
    }
    const json *list = root->type == JSON_ARRAY ? root : json_get(root, "requests");
    size_t n = list ? list->count : 0;
    out->items = calloc(n ? n : 1, sizeof *out->items);
    for (size_t i = 0; i < n; i++) {
        const json *r = &list->children[i];
        logged_request *lr = &out->items[out->count++];
        const json *headers = json_get(r, "headers");
        snprintf(lr->method, sizeof lr->method, "%s", json_str(json_get(r, "method")) ? json_str(json_get(r, "method")) : "?");
        const char *path = json_str(first_of(r, "url", "path", NULL));
        const char *query = json_str(json_get(r, "query"));
        if (asprintf(&lr->url, "%s%s%s", path ? path : "", query && *query && query[0] != '?' ? "?" : "",
                     query ? query : "") < 0) abort();
        const char *cmd = header(headers, "X-Goog-Upload-Command");
        lr->command = strdup(cmd ? cmd : "");
        const char *auth = header(headers, "Authorization");
        lr->authorization = auth ? strdup(auth) : NULL;
        const char *off = header(headers, "X-Goog-Upload-Offset");
        lr->offset = off ? atoll(off) : -1;
        lr->body_bytes = (long long)json_num(first_of(r, "body_size", "body_bytes", "body_length"), -1);
        lr->status = (int)json_num(first_of(r, "status", "response_status", NULL), 0);
        const char *verdict = json_str(json_get(r, "app_check"));
        lr->app_check = verdict ? strdup(verdict) : NULL;
    }
    json_free(root);
    free(text);
}

void reqlog_free(reqlog *log) {
    for (size_t i = 0; i < log->count; i++) {
        free(log->items[i].url);
        free(log->items[i].command);
        free(log->items[i].authorization);
        free(log->items[i].app_check);
    }
    free(log->items);
    memset(log, 0, sizeof *log);
}

size_t reqlog_count(const reqlog *log, const char *method, const char *url_part, const char *command_part) {
    size_t n = 0;
    for (size_t i = 0; i < log->count; i++) {
        const logged_request *r = &log->items[i];
        if (method && strcmp(r->method, method) != 0) continue;
        if (url_part && !strstr(r->url, url_part)) continue;
        if (command_part && (*command_part ? !strstr(r->command, command_part) : *r->command != 0)) continue;
        n++;
    }
    return n;
}

void reqlog_dump(const reqlog *log) {
    for (size_t i = 0; i < log->count; i++) {
        const logged_request *r = &log->items[i];
        printf("      %zu: %s %.120s cmd=\"%s\" offset=%lld body=%lld status=%d auth=%s\n", i, r->method,
               r->url, r->command, r->offset, r->body_bytes, r->status,
               r->authorization ? r->authorization : "(none)");
    }
}
