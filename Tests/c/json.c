/* json.c — recursive-descent JSON reader (see json.h). */
#include "json.h"

#include <stdlib.h>
#include <string.h>

typedef struct parser {
    const char *p;
    int error;
} parser;

static void skip_ws(parser *ps) {
    while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r') ps->p++;
}

static void put_utf8(char **out, unsigned cp) {
    char *o = *out;
    if (cp < 0x80) *o++ = (char)cp;
    else if (cp < 0x800) { *o++ = (char)(0xC0 | cp >> 6); *o++ = (char)(0x80 | (cp & 63)); }
    else if (cp < 0x10000) {
        *o++ = (char)(0xE0 | cp >> 12); *o++ = (char)(0x80 | (cp >> 6 & 63));
        *o++ = (char)(0x80 | (cp & 63));
    } else {
        *o++ = (char)(0xF0 | cp >> 18); *o++ = (char)(0x80 | (cp >> 12 & 63));
        *o++ = (char)(0x80 | (cp >> 6 & 63)); *o++ = (char)(0x80 | (cp & 63));
    }
    *out = o;
}

static char *parse_string(parser *ps) {
    if (*ps->p != '"') { ps->error = 1; return NULL; }
    const char *start = ++ps->p;
    while (*ps->p && *ps->p != '"') ps->p += (*ps->p == '\\' && ps->p[1]) ? 2 : 1;
    if (*ps->p != '"') { ps->error = 1; return NULL; }
    char *s = malloc((size_t)(ps->p - start) * 2 + 1), *o = s;
    for (const char *q = start; q < ps->p; q++) {
        if (*q != '\\') { *o++ = *q; continue; }
        q++;
        switch (*q) {
        case 'n': *o++ = '\n'; break;
        case 't': *o++ = '\t'; break;
        case 'r': *o++ = '\r'; break;
        case 'b': *o++ = '\b'; break;
        case 'f': *o++ = '\f'; break;
        case 'u': {
            unsigned cp = (unsigned)strtoul((char[5]){q[1], q[2], q[3], q[4], 0}, NULL, 16);
            q += 4;
            if (cp >= 0xD800 && cp < 0xDC00 && q[1] == '\\' && q[2] == 'u') {
                unsigned lo = (unsigned)strtoul((char[5]){q[3], q[4], q[5], q[6], 0}, NULL, 16);
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                q += 6;
            }
            put_utf8(&o, cp);
            break;
        }
        default: *o++ = *q;
        }
    }
    *o = 0;
    ps->p++;
    return s;
}

static void parse_value(parser *ps, json *out);

static void add_child(json *parent, json *child) {
    parent->children = realloc(parent->children, (parent->count + 1) * sizeof(json));
    parent->children[parent->count++] = *child;
}

static void parse_container(parser *ps, json *out, char close, int object) {
    ps->p++;
    skip_ws(ps);
    if (*ps->p == close) { ps->p++; return; }
    for (;;) {
        json child = {0};
        skip_ws(ps);
        if (object) {
            child.key = parse_string(ps);
            skip_ws(ps);
            if (ps->error || *ps->p != ':') { ps->error = 1; free(child.key); return; }
            ps->p++;
        }
        parse_value(ps, &child);
        add_child(out, &child);
        if (ps->error) return;
        skip_ws(ps);
        if (*ps->p == ',') { ps->p++; continue; }
        if (*ps->p == close) { ps->p++; return; }
        ps->error = 1;
        return;
    }
}

static void parse_value(parser *ps, json *out) {
    skip_ws(ps);
    char c = *ps->p;
    if (c == '{') { out->type = JSON_OBJECT; parse_container(ps, out, '}', 1); }
    else if (c == '[') { out->type = JSON_ARRAY; parse_container(ps, out, ']', 0); }
    else if (c == '"') { out->type = JSON_STRING; out->string = parse_string(ps); }
    else if (!strncmp(ps->p, "true", 4)) { out->type = JSON_BOOL; out->number = 1; ps->p += 4; }
    else if (!strncmp(ps->p, "false", 5)) { out->type = JSON_BOOL; ps->p += 5; }
    else if (!strncmp(ps->p, "null", 4)) { out->type = JSON_NULL; ps->p += 4; }
    else {
        char *end;
        out->type = JSON_NUMBER;
        out->number = strtod(ps->p, &end);
        if (end == ps->p) ps->error = 1;
        ps->p = end;
    }
}

static void free_members(json *j) {
    for (size_t i = 0; i < j->count; i++) free_members(&j->children[i]);
    free(j->children);
    free(j->string);
    free(j->key);
}

json *json_parse(const char *text) {
    if (!text) return NULL;
    parser ps = {text, 0};
    json *j = calloc(1, sizeof *j);
    parse_value(&ps, j);
    skip_ws(&ps);
    if (ps.error || *ps.p) { json_free(j); return NULL; }
    return j;
}

void json_free(json *j) {
    if (!j) return;
    free_members(j);
    free(j);
}

const json *json_get(const json *object, const char *key) {
    if (!object || object->type != JSON_OBJECT) return NULL;
    for (size_t i = 0; i < object->count; i++)
        if (object->children[i].key && strcmp(object->children[i].key, key) == 0)
            return &object->children[i];
    return NULL;
}

const json *json_at(const json *array, size_t index) {
    if (!array || (array->type != JSON_ARRAY && array->type != JSON_OBJECT) || index >= array->count)
        return NULL;
    return &array->children[index];
}

const char *json_str(const json *j) { return j && j->type == JSON_STRING ? j->string : NULL; }

double json_num(const json *j, double def) {
    if (!j) return def;
    if (j->type == JSON_NUMBER || j->type == JSON_BOOL) return j->number;
    if (j->type == JSON_STRING && j->string[0]) {
        char *end;
        double v = strtod(j->string, &end);
        if (!*end) return v;
    }
    return def;
}
