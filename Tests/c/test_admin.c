/* test_admin.c — admin access through the C API: a service account (key generated now with the
 * openssl CLI, never committed) trusted by a dedicated emulator whose rules deny everyone uploads
 * and reads; a bad key fails at once with FBS_ERR_CREDENTIAL_INVALID; a signed URL is served by the
 * emulator and refused once expired. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

static const char *const DENY_ALL =
    "rules_version = '2';\nservice firebase.storage {\n  match /b/{bucket}/o {\n"
    "    match /{all=**} {\n      allow read, write: if false;\n    }\n  }\n}\n";

/* A service-account JSON key with a fresh RSA key; token_uri as given. Caller frees. */
static char *make_key(const char *token_uri) {
    FILE *pipe = popen("openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 2>/dev/null", "r");
    REQUIRE(pipe != NULL);
    char pem[8192], escaped[9000];
    size_t n = fread(pem, 1, sizeof pem - 1, pipe);
    pclose(pipe);
    REQUIRE(n > 100);
    pem[n] = 0;
    size_t j = 0;
    for (size_t i = 0; i < n; i++) {
        if (pem[i] == '\n') { escaped[j++] = '\\'; escaped[j++] = 'n'; } else escaped[j++] = pem[i];
    }
    escaped[j] = 0;
    char *json = NULL;
    REQUIRE(asprintf(&json, "{\"type\":\"service_account\",\"project_id\":\"demo-project\",\"private_key_id\":\"c1\","
                            "\"private_key\":\"%s\",\"client_email\":\"c-admin@demo-project.iam.gserviceaccount.com\","
                            "\"token_uri\":\"%s\"}", escaped, token_uri) > 0);
    return json;
}

static void write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    REQUIRE(f != NULL);
    fputs(text, f);
    fclose(f);
}

TEST(admin_service_account_bypasses_rules_and_signs_urls) {
    char folder[] = "/tmp/fbs-admin-XXXXXX";
    REQUIRE(mkdtemp(folder) != NULL);
    char key_path[128], rules_path[128];
    snprintf(key_path, sizeof key_path, "%s/key.json", folder);
    snprintf(rules_path, sizeof rules_path, "%s/deny.rules", folder);
    char *trusted = make_key("https://oauth2.googleapis.com/token");
    write_file(key_path, trusted);
    write_file(rules_path, DENY_ALL);
    emulator admin;
    const char *args[] = {"--service-account", key_path, "--rules", rules_path, "--no-auth", NULL};
    REQUIRE(emulator_start(&admin, EMU->flavor, "127.0.0.1", args) == 0);

    /* The client's copy of the key exchanges with the emulator. */
    char token_uri[256];
    snprintf(token_uri, sizeof token_uri, "%s/oauth2.googleapis.com/token", admin.base_url);
    char *uri_start = strstr(trusted, "https://oauth2.googleapis.com/token");
    REQUIRE(uri_start != NULL);
    *uri_start = 0;
    char *client_json = NULL;
    REQUIRE(asprintf(&client_json, "%s%s\"}", trusted, token_uri) > 0);
    fbs_service_account *account = NULL;
    REQUIRE_OK(fbs_service_account_from_json(client_json, &account));
    REQUIRE(str_equal(fbs_service_account_email(account), "c-admin@demo-project.iam.gserviceaccount.com"));

    fbs_storage *s = NULL;
    REQUIRE_OK(fbs_storage_new(BUCKET, &s));
    REQUIRE_OK(fbs_storage_use_emulator(s, admin.host, admin.port));
    fbs_reference *r = new_ref(s, "admin/c.bin");
    fbs_task *t = NULL;
    REQUIRE_OK(fbs_reference_put_data(r, "admin", 5, NULL, &t));
    REQUIRE(fbs_task_wait(t, 60000) == FBS_ERR_UNAUTHORIZED);   /* no credentials: the rules deny */
    fbs_task_free(t);
    REQUIRE_OK(fbs_storage_use_service_account(s, account));
    REQUIRE_OK(fbs_reference_put_data(r, "admin", 5, NULL, &t));
    REQUIRE_OK(fbs_task_wait(t, 60000));
    fbs_task_free(t);

    char *url = NULL;
    REQUIRE_OK(fbs_service_account_sign_url(account, "GET", BUCKET, "admin/c.bin", 60, FBS_TIME_ABSENT,
                                            admin.base_url, FBS_URL_STYLE_PATH, NULL, NULL, &url));
    http_response resp;
    REQUIRE(http_request("GET", url, NULL, NULL, 0, &resp) == 200);
    REQUIRE(resp.length == 5 && memcmp(resp.body, "admin", 5) == 0);
    http_response_free(&resp);
    fbs_string_free(url);
    int64_t past_ms = ((int64_t)time(NULL) - 10) * 1000;
    REQUIRE_OK(fbs_service_account_sign_url(account, "GET", BUCKET, "admin/c.bin", 1, past_ms, admin.base_url,
                                            FBS_URL_STYLE_PATH, NULL, NULL, &url));
    REQUIRE(http_request("GET", url, NULL, NULL, 0, &resp) == 400);
    REQUIRE(strstr((char *)resp.body, "ExpiredToken") != NULL);
    http_response_free(&resp);
    fbs_string_free(url);
    REQUIRE(fbs_service_account_sign_url(account, "PATCH", BUCKET, "x", 60, FBS_TIME_ABSENT, NULL, 0, NULL, NULL,
                                         &url) == FBS_ERR_INVALID_ARGUMENT);

    fbs_service_account *bad = NULL;
    REQUIRE(fbs_service_account_from_json("{\"type\":\"authorized_user\"}", &bad) == FBS_ERR_CREDENTIAL_INVALID);

    fbs_reference_free(r);
    fbs_storage_free(s);
    fbs_service_account_free(account);
    emulator_stop(&admin);
    free(client_json);
    free(trusted);
    unlink(key_path);
    unlink(rules_path);
    rmdir(folder);
}

TEST_OFFLINE(admin_bad_arguments_fail_at_once) {
    fbs_service_account *account = NULL;
    char *out = NULL;
    REQUIRE(fbs_service_account_from_file(NULL, &account) == FBS_ERR_INVALID_ARGUMENT);
    REQUIRE(fbs_service_account_from_file("/nonexistent/key.json", &account) == FBS_ERR_CREDENTIAL_INVALID);
    REQUIRE(fbs_service_account_from_json("{}", NULL) == FBS_ERR_INVALID_ARGUMENT);
    REQUIRE(fbs_service_account_from_json("[1]", &account) == FBS_ERR_CREDENTIAL_INVALID && account == NULL);
    REQUIRE(fbs_service_account_access_token(NULL, 0, &out) == FBS_ERR_INVALID_ARGUMENT);
    REQUIRE(fbs_service_account_sign_url(NULL, "GET", "b", "o", 60, FBS_TIME_ABSENT, NULL, 0, NULL, NULL, &out)
            == FBS_ERR_INVALID_ARGUMENT);
    REQUIRE(fbs_service_account_email(NULL) == NULL);
    fbs_service_account_free(NULL);
    fbs_storage *s = NULL;
    REQUIRE_OK(fbs_storage_new(BUCKET, &s));
    REQUIRE(fbs_storage_set_access_token(s, "bad\ntoken") == FBS_ERR_INVALID_ARGUMENT);
    REQUIRE_OK(fbs_storage_set_access_token(s, NULL));
    REQUIRE_OK(fbs_storage_use_service_account(s, NULL));
    fbs_reference *r = new_ref(s, "x");
    REQUIRE(fbs_reference_download_url_for_token(r, "", &out) == FBS_ERR_INVALID_ARGUMENT);
    REQUIRE_OK(fbs_reference_download_url_for_token(r, "t k", &out));
    REQUIRE(strstr(out, "/o/x?alt=media&token=t%20k") != NULL);
    fbs_string_free(out);
    REQUIRE(fbs_reference_copy_to(r, NULL, NULL) == FBS_ERR_INVALID_ARGUMENT);
    fbs_reference_free(r);
    fbs_storage_free(s);
}
