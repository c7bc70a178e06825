/* test_security_names.c — object names made of "..", ".", "%2F", "?", "#" and "&" address
 * exactly their own object (upload, metadata, download), never a neighbour; and the emulator's
 * --data-dir holds every such object without writing outside its folder. The names "." and ".."
 * GCS reserves: the production flavor refuses to create them (docs/security.md), the
 * firebase-tools flavor stores them. */
#define _GNU_SOURCE
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness.h"

static const char *const NAMES[] = {
    "..", ".", "names/..", "names/.", "names/../escape.bin", "names/./dot.bin",
    "../../../../../tmp/fbs-escape.bin", "names/a%2Fb", "names/%2E%2E", "names/q?x=1&y=2",
    "names/h#fragment", "names/amp&name=other",
};
#define NAME_COUNT (sizeof NAMES / sizeof NAMES[0])
/* Where a name that escaped its segment would land. */
static const char *const NEIGHBOURS[] = {
    "escape.bin", "names/escape.bin", "dot.bin", "tmp/fbs-escape.bin", "names/a/b", "names/a",
    "names/q", "names/h", "names/amp", "other", "names",
};

/* The stored bytes of `name` (NULL when missing). Every byte but letters and digits is
 * percent-encoded: the test's own HTTP client would otherwise remove "." and ".." segments. */
static unsigned char *fetch_stored(const char *name, size_t *n) {
    char url[2048];
    int at = snprintf(url, sizeof url, "%s/_emulator/objects/%s/", EMU->base_url, BUCKET);
    for (const unsigned char *c = (const unsigned char *)name; *c && at < (int)sizeof url - 4; c++)
        at += (*c >= '0' && *c <= '9') || ((*c | 0x20) >= 'a' && (*c | 0x20) <= 'z')
            ? snprintf(url + at, 2, "%c", *c) : snprintf(url + at, 4, "%%%02X", *c);
    http_response r;
    long status = http_request("GET", url, NULL, NULL, 0, &r);
    free(r.headers);
    if (status != 200) { free(r.body); return NULL; }
    *n = r.length;
    return r.body;
}

/* Whether the current flavor refuses to create `name` (a 400: FBS_ERR_UNKNOWN). */
static int refused(const char *name) {
    return (!strcmp(name, ".") || !strcmp(name, "..")) && !strcmp(EMU->flavor, "production");
}

/* Uploads every name through storage s, each with its own name as the content. */
static void upload_all(fbs_storage *s) {
    for (size_t i = 0; i < NAME_COUNT; i++)
        check_code(upload_bytes(s, NAMES[i], NAMES[i], strlen(NAMES[i])), refused(NAMES[i]) ? FBS_ERR_UNKNOWN : FBS_OK,
                   NAMES[i], __FILE__, __LINE__);
}

/* Each name reads back as itself through the library: metadata and bytes. */
static void read_all_back(fbs_storage *s) {
    for (size_t i = 0; i < NAME_COUNT; i++) {
        if (refused(NAMES[i])) continue;
        fbs_reference *r = new_ref(s, NAMES[i]);
        fbs_metadata *m = NULL;
        void *data = NULL;
        size_t n = 0;
        if (check_code(fbs_reference_get_metadata(r, &m), FBS_OK, NAMES[i], __FILE__, __LINE__))
            CHECK_STR(fbs_metadata_full_path(m), NAMES[i]);
        if (check_code(fbs_reference_get_data(r, 1024, &data, &n), FBS_OK, NAMES[i], __FILE__, __LINE__)
            && !bytes_equal(data, n, NAMES[i], strlen(NAMES[i])))
            check_fail(__FILE__, __LINE__, "%s: downloaded \"%.*s\"", NAMES[i], (int)n, (char *)data);
        fbs_data_free(data);
        fbs_metadata_free(m);
        fbs_reference_free(r);
    }
}

TEST(names_stay_inside_their_object) {
    fbs_storage *s = new_storage();
    upload_all(s);
    for (size_t i = 0; i < NAME_COUNT; i++) {   /* stored under exactly that name */
        size_t n = 0;
        unsigned char *got = fetch_stored(NAMES[i], &n);
        if (refused(NAMES[i])) {
            if (got) check_fail(__FILE__, __LINE__, "\"%s\" was stored though refused", NAMES[i]);
            else check_pass();
        } else if (!got || !bytes_equal(got, n, NAMES[i], strlen(NAMES[i])))
            check_fail(__FILE__, __LINE__, "\"%s\" is not stored under its name (got \"%.*s\")", NAMES[i],
                       got ? (int)n : 6, got ? (char *)got : "(none)");
        else check_pass();
        free(got);
    }
    for (size_t i = 0; i < sizeof NEIGHBOURS / sizeof NEIGHBOURS[0]; i++) {
        size_t n = 0;
        unsigned char *got = fetch_stored(NEIGHBOURS[i], &n);
        if (got) check_fail(__FILE__, __LINE__, "\"%s\" exists: \"%.*s\"", NEIGHBOURS[i], (int)n, (char *)got);
        else check_pass();
        free(got);
    }
    read_all_back(s);
    fbs_storage_free(s);
}

static char data_root[512];
static int outside_count;

static int visit(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st; (void)flag;
    if (ftw->level == 0) return 0;
    char data[600];
    snprintf(data, sizeof data, "%s/data", data_root);
    size_t len = strlen(data);
    int inside = strncmp(path, data, len) == 0 && (path[len] == 0 || path[len] == '/');
    if (inside && ftw->level == 2) {   /* the data dir's own layout */
        const char *top = path + len + 1;
        inside = !strcmp(top, "blobs") || !strcmp(top, "objects") || !strcmp(top, "tmp") ||
                 !strcmp(top, "buckets.json") || !strcmp(top, "auth") ||   /* GCS buckets, Auth accounts */
                 !strcmp(top, "sessions");   /* resumable upload sessions, named by their ids */
    }
    if (!inside) {
        outside_count++;
        printf("      written outside the data dir's layout: %s\n", path);
    }
    return 0;
}

TEST(names_data_dir_never_written_outside) {
    char *root = temp_path("-root");
    snprintf(data_root, sizeof data_root, "%s", root);
    REQUIRE(mkdir(root, 0755) == 0);
    char data[600];
    snprintf(data, sizeof data, "%s/data", root);
    const char *args[] = {"--data-dir", data, NULL};
    emulator e;
    REQUIRE(emulator_start(&e, EMU->flavor, "127.0.0.1", args) == 0);
    fbs_storage *s = NULL;
    REQUIRE_OK(fbs_storage_new(BUCKET, &s));
    REQUIRE_OK(fbs_storage_use_emulator(s, e.host, e.port));
    upload_all(s);
    emulator_stop(&e);
    outside_count = 0;
    REQUIRE(nftw(root, visit, 16, FTW_PHYS) == 0);
    CHECK_EQ_INT(outside_count, 0);
    /* and the restarted emulator serves every object back from the data dir */
    REQUIRE(emulator_start(&e, EMU->flavor, "127.0.0.1", args) == 0);
    REQUIRE_OK(fbs_storage_use_emulator(s, e.host, e.port));
    read_all_back(s);
    fbs_storage_free(s);
    emulator_stop(&e);
    free(root);
}
