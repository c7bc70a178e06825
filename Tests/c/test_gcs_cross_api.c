/* test_gcs_cross_api.c — one store behind both APIs: an object the C client uploads through
 * the Firebase v0 API is the object the GCS JSON API (what the Admin SDKs speak) serves, with the
 * same bytes, generation, metageneration and metadata; and an object written through the GCS API
 * is read, updated and listed by the C client. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "json.h"

#define KIB 1024

/* GET <base><path>; the parsed JSON body (caller frees), failing the test unless 200. */
static json *gcs_get_json(const char *path) {
    char url[1024];
    snprintf(url, sizeof url, "%s%s", EMU->base_url, path);
    http_response r;
    long status = http_request("GET", url, NULL, NULL, 0, &r);
    json *j = status == 200 ? json_parse((const char *)r.body) : NULL;
    if (!j) check_fail(__FILE__, __LINE__, "GET %s: %ld %s", path, status, r.body ? (const char *)r.body : "");
    http_response_free(&r);
    return j;
}

static long long number_field(const json *object, const char *key) {
    const char *text = json_str(json_get(object, key));   /* the GCS API sends int64 as strings */
    return text ? atoll(text) : -1;
}

TEST(gcs_api_serves_what_the_c_client_uploaded) {
    fbs_storage *s = new_storage();
    size_t n = 300 * KIB;   /* resumable through v0 */
    unsigned char *bytes = random_bytes(n, 91);
    fbs_metadata *m = NULL;
    REQUIRE_OK(fbs_metadata_new(&m));
    REQUIRE_OK(fbs_metadata_set_content_type(m, "text/csv"));
    REQUIRE_OK(fbs_metadata_set_custom(m, "owner", "ada"));
    fbs_reference *r = new_ref(s, "cross/from v0.csv");
    fbs_task *t = NULL;
    REQUIRE_OK(fbs_reference_put_data(r, bytes, n, m, &t));
    REQUIRE_OK(fbs_task_wait(t, 60000));
    fbs_metadata *v0 = NULL;
    REQUIRE_OK(fbs_reference_get_metadata(r, &v0));

    char path[512];
    snprintf(path, sizeof path, "/storage/v1/b/%s/o/cross%%2Ffrom%%20v0.csv", BUCKET);
    json *resource = gcs_get_json(path);
    if (resource) {
        CHECK_STR(json_str(json_get(resource, "name")), "cross/from v0.csv");
        CHECK_EQ_INT(number_field(resource, "size"), (long long)n);
        CHECK_EQ_INT(number_field(resource, "generation"), fbs_metadata_generation(v0));
        CHECK_EQ_INT(number_field(resource, "metageneration"), fbs_metadata_metageneration(v0));
        CHECK_STR(json_str(json_get(resource, "contentType")), "text/csv");
        CHECK_STR(json_str(json_get(resource, "md5Hash")), fbs_metadata_md5_hash(v0));
        const json *custom = json_get(resource, "metadata");
        CHECK_STR(json_str(json_get(custom, "owner")), "ada");
        CHECK(json_str(json_get(custom, "firebaseStorageDownloadTokens")) != NULL);   /* as in production */
    }
    json_free(resource);

    char url[1024];
    snprintf(url, sizeof url, "%s/download/storage/v1/b/%s/o/cross%%2Ffrom%%20v0.csv?alt=media", EMU->base_url, BUCKET);
    http_response media;
    CHECK_EQ_INT(http_request("GET", url, NULL, NULL, 0, &media), 200);
    CHECK(bytes_equal(media.body, media.length, bytes, n));
    http_response_free(&media);

    fbs_metadata_free(v0);
    fbs_metadata_free(m);
    fbs_task_free(t);
    fbs_reference_free(r);
    free(bytes);
    fbs_storage_free(s);
}

TEST(c_client_reads_and_updates_what_the_gcs_api_wrote) {
    const char body[] = "written by an Admin SDK";
    char url[1024];
    snprintf(url, sizeof url, "%s/upload/storage/v1/b/%s/o?uploadType=media&name=cross%%2Ffrom-gcs.txt",
             EMU->base_url, BUCKET);
    const char *headers[] = {"Content-Type: text/plain", NULL};
    http_response written;
    REQUIRE(http_request("POST", url, headers, body, sizeof body - 1, &written) == 200);
    json *resource = json_parse((const char *)written.body);
    http_response_free(&written);
    REQUIRE(resource != NULL);

    fbs_storage *s = new_storage();
    fbs_reference *r = new_ref(s, "cross/from-gcs.txt");
    void *data = NULL;
    size_t length = 0;
    REQUIRE_OK(fbs_reference_get_data(r, 1024, &data, &length));
    CHECK(bytes_equal(data, length, body, sizeof body - 1));
    fbs_data_free(data);
    fbs_metadata *m = NULL;
    REQUIRE_OK(fbs_reference_get_metadata(r, &m));
    CHECK_EQ_INT(fbs_metadata_generation(m), number_field(resource, "generation"));
    CHECK_STR(fbs_metadata_content_type(m), "text/plain");
    fbs_metadata_free(m);

    /* a v0 metadata update is a new metageneration the GCS API sees */
    fbs_metadata *changes = NULL, *updated = NULL;
    REQUIRE_OK(fbs_metadata_new(&changes));
    REQUIRE_OK(fbs_metadata_set_custom(changes, "reviewed", "yes"));
    REQUIRE_OK(fbs_reference_update_metadata(r, changes, &updated));
    char path[512];
    snprintf(path, sizeof path, "/storage/v1/b/%s/o/cross%%2Ffrom-gcs.txt", BUCKET);
    json *after = gcs_get_json(path);
    if (after) {
        CHECK_EQ_INT(number_field(after, "metageneration"), fbs_metadata_metageneration(updated));
        CHECK(number_field(after, "metageneration") > number_field(resource, "metageneration"));
        CHECK_STR(json_str(json_get(json_get(after, "metadata"), "reviewed")), "yes");
    }
    json_free(after);
    json_free(resource);
    fbs_metadata_free(updated);
    fbs_metadata_free(changes);
    fbs_reference_free(r);
    fbs_storage_free(s);
}
