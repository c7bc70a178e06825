/* json.h — a minimal JSON reader for the emulator's control API answers. */
#ifndef FBS_TEST_JSON_H
#define FBS_TEST_JSON_H

#include <stddef.h>

typedef enum { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT } json_type;

typedef struct json {
    json_type type;
    double number;          /* JSON_NUMBER, JSON_BOOL (0/1) */
    char *string;           /* JSON_STRING (NUL-terminated, escapes decoded) */
    char *key;              /* set on members of an object */
    struct json *children;  /* array elements / object members */
    size_t count;
} json;

json *json_parse(const char *text);   /* NULL on a syntax error; free with json_free */
void json_free(json *j);
const json *json_get(const json *object, const char *key);   /* NULL when absent */
const json *json_at(const json *array, size_t index);        /* NULL out of range */
const char *json_str(const json *j);                          /* NULL unless a string */
/* A number, or a string holding a number ("123"); def otherwise. */
double json_num(const json *j, double def);

#endif
