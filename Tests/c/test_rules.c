/* test_rules.c — storage.rules through the C API, both emulator flavors: uploads allowed or denied
 * by size, content type and custom claims; an overwrite evaluated as `create`; list refused under
 * rules_version 1 (403 in the official emulator, 400 in production). */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static const char *const RULES =
    "rules_version = '2';\n"
    "service firebase.storage {\n"
    "  match /b/{bucket}/o {\n"
    "    match /photos/{uid}/{name} {\n"
    "      allow read: if request.auth != null;\n"
    "      allow create: if request.auth.uid == uid\n"
    "                    && request.resource.size < 1024\n"
    "                    && request.resource.contentType.matches('image/.*');\n"
    "    }\n"
    "    match /reports/{name} {\n"
    "      allow read;\n"
    "      allow create: if request.auth.token.role == 'editor' && resource == null;\n"
    "    }\n"
    "  }\n"
    "}\n";

static const char *const V1_RULES =
    "service firebase.storage {\n"
    "  match /b/{bucket}/o {\n"
    "    match /{all=**} {\n"
    "      allow read, write;\n"
    "    }\n"
    "  }\n"
    "}\n";

/* The users' ID tokens' claims, minted by the emulator (signed in the production flavor). */
static const char *const ALICE = "{\"user_id\": \"alice\"}";
static const char *const EDITOR = "{\"user_id\": \"carol\", \"role\": \"editor\"}";

/* Signs s in as the user these claims describe. */
static void sign_in_as(fbs_storage *s, const char *claims) {
    char *token = emu_id_token(EMU, claims);
    REQUIRE_OK(fbs_storage_set_auth_token(s, token));
    free(token);
}

static void put_rules(const char *rules) {
    char url[256];
    snprintf(url, sizeof url, "%s/_emulator/rules", EMU->base_url);
    REQUIRE(http_request("PUT", url, NULL, rules, strlen(rules), NULL) == 204);
}

static int upload_typed(fbs_storage *s, const char *path, size_t n, const char *content_type) {
    fbs_metadata *m = NULL;
    REQUIRE_OK(fbs_metadata_new(&m));
    REQUIRE_OK(fbs_metadata_set_content_type(m, content_type));
    unsigned char *bytes = random_bytes(n, 7);
    fbs_reference *r = new_ref(s, path);
    fbs_task *t = NULL;
    int rc = fbs_reference_put_data(r, bytes, n, m, &t);
    if (rc == FBS_OK) rc = fbs_task_wait(t, 60000);
    fbs_task_free(t);
    fbs_reference_free(r);
    fbs_metadata_free(m);
    free(bytes);
    return rc;
}

TEST(rules_upload_by_size_content_type_and_owner) {
    put_rules(RULES);
    fbs_storage *s = new_storage();
    CHECK_CODE(upload_typed(s, "photos/alice/a.png", 100, "image/png"), FBS_ERR_UNAUTHORIZED);   /* no user */
    CHECK_EQ_INT(fbs_last_error_http_status(), 403);
    sign_in_as(s, ALICE);
    CHECK_CODE(upload_typed(s, "photos/alice/a.png", 100, "image/png"), FBS_OK);
    CHECK_CODE(upload_typed(s, "photos/alice/big.png", 2000, "image/png"), FBS_ERR_UNAUTHORIZED);
    CHECK_CODE(upload_typed(s, "photos/alice/a.txt", 100, "text/plain"), FBS_ERR_UNAUTHORIZED);
    CHECK_CODE(upload_typed(s, "photos/bob/a.png", 100, "image/png"), FBS_ERR_UNAUTHORIZED);
    size_t n = 0;
    unsigned char *stored = emu_fetch_object(EMU, "photos/alice/a.png", &n);
    CHECK(stored && n == 100);
    free(stored);
    CHECK(emu_fetch_object(EMU, "photos/alice/big.png", &n) == NULL);   /* denied bytes are not kept */
    fbs_storage_free(s);
}

TEST(rules_custom_claim_and_overwrite_as_create) {
    put_rules(RULES);
    fbs_storage *s = new_storage();
    sign_in_as(s, ALICE);
    CHECK_CODE(upload_bytes(s, "reports/q1.txt", "draft", 5), FBS_ERR_UNAUTHORIZED);   /* claim missing */
    sign_in_as(s, EDITOR);
    CHECK_CODE(upload_bytes(s, "reports/q1.txt", "draft", 5), FBS_OK);
    CHECK_CODE(upload_bytes(s, "reports/q1.txt", "final", 5), FBS_ERR_UNAUTHORIZED);   /* resource != null */
    size_t n = 0;
    unsigned char *stored = emu_fetch_object(EMU, "reports/q1.txt", &n);
    CHECK(stored && bytes_equal(stored, n, "draft", 5));
    free(stored);
    fbs_storage_free(s);
}

TEST(rules_list_refused_under_rules_version_1) {
    put_rules(V1_RULES);
    fbs_storage *s = new_storage();
    CHECK_CODE(upload_bytes(s, "v1/a.txt", "a", 1), FBS_OK);
    fbs_reference *r = new_ref(s, "v1");
    fbs_list_result *lr = NULL;
    if (strcmp(EMU->flavor, "production") == 0) {
        CHECK_CODE(fbs_reference_list_all(r, &lr), FBS_ERR_UNKNOWN);
        CHECK_EQ_INT(fbs_last_error_http_status(), 400);
        CHECK(strstr(fbs_last_error_message(), "Listing objects in a bucket is disallowed") != NULL);
    } else {
        CHECK_CODE(fbs_reference_list_all(r, &lr), FBS_ERR_UNAUTHORIZED);
        CHECK_EQ_INT(fbs_last_error_http_status(), 403);
    }
    fbs_list_result_free(lr);
    fbs_reference_free(r);
    fbs_storage_free(s);
}
