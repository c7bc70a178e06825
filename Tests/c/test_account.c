/* test_account.c — the account lifecycle of fbstorage/auth.h against the bundled emulator (both
 * flavors): credentials, an anonymous user linking an email (the uid and its files stay), email
 * verification through the code the emulator lists at /emulator/v1/projects/{id}/oobCodes and
 * seen by storage rules after a reload, password reset, Google (fake IdP token) sign-in, linking
 * and unlinking, expired codes, recent sign-in, and the error of each failure. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "events.h"

static const char *const VERIFIED_RULES =
    "rules_version = '2';\n"
    "service firebase.storage {\n"
    "  match /b/{bucket}/o {\n"
    "    match /users/{uid}/{file=**} {\n"
    "      allow read: if request.auth.uid == uid;\n"
    "      allow write: if request.auth.uid == uid && request.auth.token.email_verified == true;\n"
    "    }\n"
    "    match /drafts/{uid}/{file=**} { allow read, write: if request.auth.uid == uid; }\n"
    "  }\n"
    "}\n";

static emulator owned;

static emulator *start_with(const char *const *more_args) {
    char *file = temp_file_with(VERIFIED_RULES, strlen(VERIFIED_RULES), ".rules");
    const char *args[16] = {"--rules", file, "--no-auth"};
    int n = 3;
    for (; more_args && *more_args && n < 15; more_args++) args[n++] = *more_args;
    args[n] = NULL;
    REQUIRE(emulator_start(&owned, EMU->flavor, "127.0.0.1", args) == 0);
    free(file);
    return &owned;
}

/* Uploads "x" to users/<uid>/<name> or drafts/<uid>/<name>; returns the task's final code. */
static int upload(fbs_storage *s, const char *folder, const char *uid, const char *name) {
    char *path = NULL;
    REQUIRE(asprintf(&path, "%s/%s/%s", folder, uid, name) > 0);
    int code = upload_bytes(s, path, "x", 1);
    free(path);
    return code;
}

/* The emulator's pending code of that type for that email; NULL when none. Caller frees. */
static char *pending_code(const emulator *e, const char *type, const char *email) {
    return emu_pending_oob(e, type, email, "oobCode");
}

static fbs_credential *google(const char *name, const char *email, int verified) {
    char token[256];
    snprintf(token, sizeof token, "{\"sub\":\"google-%s\",\"email\":\"%s\",\"email_verified\":%s}", name, email,
             verified ? "true" : "false");
    fbs_credential *credential = NULL;
    REQUIRE_OK(fbs_credential_idp("google.com", token, NULL, &credential));
    return credential;
}

static void on_user(int status, const fbs_user *user, void *u) {
    completion *c = u;
    if (user) snprintf(c->text, sizeof c->text, "%s", fbs_user_uid(user));
    c->number = user ? fbs_user_is_email_verified(user) : -1;
    completion_record(c, status);
}

static void on_done(int status, void *u) { completion_record(u, status); }

static void on_string(int status, const char *value, void *u) {
    completion *c = u;
    snprintf(c->text, sizeof c->text, "%s", value ? value : "");
    completion_record(c, status);
}

TEST(account_anonymous_links_email_verifies_it_and_rules_see_it) {
    emulator *e = start_with(NULL);
    fbs_auth *auth = auth_for(e);
    fbs_user *anonymous = NULL, *user = NULL;
    REQUIRE_OK(fbs_auth_sign_in_anonymously(auth, &anonymous));
    char *uid = strdup(fbs_user_uid(anonymous));
    fbs_storage *s = storage_using(e, auth);
    CHECK_CODE(upload(s, "drafts", uid, "a.txt"), FBS_OK);

    fbs_credential *credential = NULL;
    REQUIRE_OK(fbs_credential_email("ann@example.com", "correct-horse", &credential));
    REQUIRE_OK(fbs_auth_link_with_credential(auth, credential, &user));
    CHECK_STR(fbs_user_uid(user), uid);
    CHECK_STR(fbs_user_email(user), "ann@example.com");
    CHECK_STR(fbs_user_sign_in_provider(user), "password");
    CHECK_EQ_INT(fbs_user_is_anonymous(user), 0);
    CHECK_EQ_INT(fbs_user_is_email_verified(user), 0);
    CHECK(strcmp(fbs_user_id_token(user), fbs_user_id_token(anonymous)) != 0);
    fbs_user_free(user);
    /* The same files, the same rules; the unverified email does not open users/. */
    CHECK_CODE(upload(s, "drafts", uid, "b.txt"), FBS_OK);
    CHECK_CODE(upload(s, "users", uid, "a.txt"), FBS_ERR_UNAUTHORIZED);

    REQUIRE_OK(fbs_auth_send_email_verification(auth));
    char *code = pending_code(e, "VERIFY_EMAIL", "ann@example.com");
    REQUIRE(code != NULL);
    completion applied;
    completion_init(&applied);
    REQUIRE_OK(fbs_auth_apply_action_code_async(auth, code, on_done, &applied));
    REQUIRE(completion_wait(&applied, 30000));
    CHECK_CODE(applied.status, FBS_OK);
    CHECK_CODE(fbs_auth_apply_action_code(auth, code), FBS_ERR_AUTH_INVALID_ACTION_CODE);   /* used up */
    CHECK(strstr(fbs_last_error_message(), code) == NULL);

    completion reloaded;
    completion_init(&reloaded);
    REQUIRE_OK(fbs_auth_reload_async(auth, on_user, &reloaded));
    REQUIRE(completion_wait(&reloaded, 30000));
    CHECK_CODE(reloaded.status, FBS_OK);
    CHECK_STR(reloaded.text, uid);
    CHECK_EQ_INT((int)reloaded.number, 1);
    REQUIRE_OK(fbs_auth_current_user(auth, &user));
    CHECK_EQ_INT(fbs_user_is_email_verified(user), 1);
    CHECK(strstr(fbs_user_claims_json(user), "\"email_verified\":true") != NULL);
    fbs_user_free(user);
    CHECK_CODE(upload(s, "users", uid, "a.txt"), FBS_OK);

    /* Another session signs in with the linked email and password as the same user. */
    fbs_auth *again = auth_for(e);
    REQUIRE_OK(fbs_auth_sign_in_with_credential(again, credential, &user));
    CHECK_STR(fbs_user_uid(user), uid);
    fbs_user_free(user);
    fbs_auth_free(again);

    free(code);
    free(uid);
    fbs_credential_free(credential);
    fbs_user_free(anonymous);
    fbs_storage_free(s);
    fbs_auth_free(auth);
    emulator_stop(e);
}

TEST(account_password_reset_through_the_mailed_code) {
    emulator *e = start_with(NULL);
    fbs_auth *auth = auth_for(e);
    REQUIRE_OK(fbs_auth_create_user(auth, "bob@example.com", "correct-horse", NULL));
    REQUIRE_OK(fbs_auth_sign_out(auth));
    CHECK_CODE(fbs_auth_send_password_reset_email(auth, "nobody@example.com"), FBS_ERR_AUTH_USER_NOT_FOUND);
    CHECK_CODE(fbs_auth_send_password_reset_email(auth, "not-an-email"), FBS_ERR_AUTH_INVALID_EMAIL);
    REQUIRE_OK(fbs_auth_send_password_reset_email(auth, "bob@example.com"));
    char *code = pending_code(e, "PASSWORD_RESET", "bob@example.com");
    REQUIRE(code != NULL);

    char *email = NULL;
    REQUIRE_OK(fbs_auth_verify_password_reset_code(auth, code, &email));
    CHECK_STR(email, "bob@example.com");
    fbs_string_free(email);
    completion checked;
    completion_init(&checked);
    REQUIRE_OK(fbs_auth_verify_password_reset_code_async(auth, code, on_string, &checked));
    REQUIRE(completion_wait(&checked, 30000));
    CHECK_CODE(checked.status, FBS_OK);
    CHECK_STR(checked.text, "bob@example.com");
    CHECK_CODE(fbs_auth_verify_password_reset_code(auth, "not-a-code", &email), FBS_ERR_AUTH_INVALID_ACTION_CODE);

    CHECK_CODE(fbs_auth_confirm_password_reset(auth, code, "abc"), FBS_ERR_AUTH_WEAK_PASSWORD);
    REQUIRE_OK(fbs_auth_confirm_password_reset(auth, code, "new-horse-battery"));
    CHECK_CODE(fbs_auth_confirm_password_reset(auth, code, "another-horse"), FBS_ERR_AUTH_INVALID_ACTION_CODE);
    CHECK_CODE(fbs_auth_sign_in_with_email(auth, "bob@example.com", "correct-horse", NULL), FBS_ERR_AUTH_WRONG_PASSWORD);
    fbs_user *user = NULL;
    REQUIRE_OK(fbs_auth_sign_in_with_email(auth, "bob@example.com", "new-horse-battery", &user));
    CHECK_EQ_INT(fbs_user_is_email_verified(user), 1);   /* the reset proved the mailbox */
    fbs_user_free(user);
    free(code);
    fbs_auth_free(auth);
    emulator_stop(e);
}

TEST(account_google_sign_in_linking_and_its_errors) {
    emulator *e = start_with(NULL);
    fbs_auth *auth = auth_for(e);
    fbs_user *anonymous = NULL, *user = NULL;
    REQUIRE_OK(fbs_auth_sign_in_anonymously(auth, &anonymous));
    const char *uid = fbs_user_uid(anonymous);
    fbs_storage *s = storage_using(e, auth);
    CHECK_CODE(upload(s, "drafts", uid, "a.txt"), FBS_OK);

    fbs_credential *cy = google("cy", "cy@gmail.com", 1);
    completion linked;
    completion_init(&linked);
    REQUIRE_OK(fbs_auth_link_with_credential_async(auth, cy, on_user, &linked));
    REQUIRE(completion_wait(&linked, 30000));
    CHECK_CODE(linked.status, FBS_OK);
    CHECK_STR(linked.text, uid);
    CHECK_EQ_INT((int)linked.number, 1);   /* Google vouches for the email */
    CHECK_CODE(upload(s, "users", uid, "a.txt"), FBS_OK);
    CHECK_CODE(fbs_auth_link_with_credential(auth, cy, NULL), FBS_ERR_AUTH_PROVIDER_ALREADY_LINKED);

    fbs_auth *other = auth_for(e);
    REQUIRE_OK(fbs_auth_sign_in_anonymously(other, NULL));
    CHECK_CODE(fbs_auth_link_with_credential(other, cy, NULL), FBS_ERR_AUTH_CREDENTIAL_ALREADY_IN_USE);
    CHECK_CODE(fbs_auth_reauthenticate(other, cy, NULL), FBS_ERR_AUTH_USER_MISMATCH);
    REQUIRE_OK(fbs_auth_sign_in_with_credential(other, cy, &user));   /* Google's user is the linked one */
    CHECK_STR(fbs_user_uid(user), uid);
    CHECK_STR(fbs_user_sign_in_provider(user), "google.com");
    fbs_user_free(user);

    REQUIRE_OK(fbs_auth_unlink(auth, "google.com", &user));
    CHECK_STR(fbs_user_uid(user), uid);
    CHECK(strstr(fbs_user_claims_json(user), "\"google.com\":[") == NULL);   /* firebase.identities */
    fbs_user_free(user);

    /* An unverified claim on an existing account's email asks for that account's sign-in. */
    REQUIRE_OK(fbs_auth_create_user(other, "dee@example.com", "correct-horse", NULL));
    char *methods = NULL;
    REQUIRE_OK(fbs_auth_fetch_sign_in_methods(other, "dee@example.com", &methods));
    CHECK_STR(methods, "password");
    fbs_string_free(methods);
    REQUIRE_OK(fbs_auth_fetch_sign_in_methods(other, "nobody@example.com", &methods));
    CHECK_STR(methods, "");
    fbs_string_free(methods);
    CHECK_CODE(fbs_auth_fetch_sign_in_methods(other, "not an email", &methods), FBS_ERR_AUTH_INVALID_EMAIL);
    fbs_credential *dee = google("dee", "dee@example.com", 0);
    CHECK_CODE(fbs_auth_sign_in_with_credential(other, dee, NULL), FBS_ERR_AUTH_ACCOUNT_EXISTS_WITH_DIFFERENT_CREDENTIAL);
    fbs_credential *junk = NULL;
    REQUIRE_OK(fbs_credential_idp("google.com", "not a token", NULL, &junk));
    CHECK_CODE(fbs_auth_sign_in_with_credential(other, junk, NULL), FBS_ERR_AUTH_INVALID_CREDENTIAL);
    REQUIRE_OK(fbs_auth_current_user(other, &user));   /* failed sign-ins keep the user */
    CHECK_STR(fbs_user_email(user), "dee@example.com");
    fbs_user_free(user);

    /* Twitter's token with its secret signs in; a provider Identity Toolkit does not know is an
     * unknown error whose message keeps the token out. */
    fbs_credential *tess = NULL;
    REQUIRE_OK(fbs_credential_oauth("twitter.com", NULL, NULL, "{\"sub\":\"twitter-tess\"}", "token secret", &tess));
    REQUIRE_OK(fbs_auth_sign_in_with_credential(other, tess, &user));
    CHECK_STR(fbs_user_sign_in_provider(user), "twitter.com");
    /* The sign-in's additional information: a new account, the provider's profile. */
    CHECK_EQ_INT(fbs_user_is_new_user(user), 1);
    CHECK_STR(fbs_user_additional_provider_id(user), "twitter.com");
    CHECK(strstr(fbs_user_additional_profile_json(user), "\"twitter-tess\"") != NULL);
    CHECK(fbs_user_additional_username(user) == NULL);
    fbs_user_free(user);
    REQUIRE_OK(fbs_auth_current_user(other, &user));   /* only a sign-in's answer carries it */
    CHECK_EQ_INT(fbs_user_is_new_user(user), -1);
    CHECK(fbs_user_additional_profile_json(user) == NULL);
    fbs_user_free(user);
    REQUIRE_OK(fbs_auth_sign_in_with_credential(other, tess, &user));
    CHECK_EQ_INT(fbs_user_is_new_user(user), 0);
    fbs_user_free(user);
    fbs_credential *unknown = NULL;
    REQUIRE_OK(fbs_credential_oauth("bad provider", "{\"sub\":\"nobody-known\"}", "raw nonce", NULL, NULL, &unknown));
    CHECK_CODE(fbs_auth_sign_in_with_credential(other, unknown, NULL), FBS_ERR_UNKNOWN);
    CHECK(strstr(fbs_last_error_message(), "INVALID_CREDENTIAL_OR_PROVIDER_ID") != NULL);
    CHECK(strstr(fbs_last_error_message(), "nobody-known") == NULL);

    fbs_credential_free(unknown);
    fbs_credential_free(tess);
    fbs_credential_free(junk);
    fbs_credential_free(dee);
    fbs_credential_free(cy);
    fbs_user_free(anonymous);
    fbs_storage_free(s);
    fbs_auth_free(other);
    fbs_auth_free(auth);
    emulator_stop(e);
}

TEST(account_expired_codes_and_recent_sign_in) {
    /* A 4 s window: after the reauthentication (auth_time in whole seconds) the change that
     * follows has 3 s at least, however loaded the machine. */
    const char *args[] = {"--auth-oob-code-lifetime", "1", "--auth-recent-login", "4", NULL};
    emulator *e = start_with(args);
    fbs_auth *auth = auth_for(e);
    fbs_user *user = NULL;
    REQUIRE_OK(fbs_auth_create_user(auth, "eve@example.com", "correct-horse", &user));
    int64_t signed_in = fbs_user_auth_time(user);
    fbs_user_free(user);
    REQUIRE_OK(fbs_auth_send_email_verification(auth));
    char *code = pending_code(e, "VERIFY_EMAIL", "eve@example.com");
    REQUIRE(code != NULL);
    /* An expired code is no longer listed: wait for that, then apply it. */
    char *still = NULL;
    for (int i = 0; i < 100 && (still = pending_code(e, "VERIFY_EMAIL", "eve@example.com")) != NULL; i++) {
        free(still);
        sleep_ms(100);
    }
    REQUIRE(still == NULL);
    CHECK_CODE(fbs_auth_apply_action_code(auth, code), FBS_ERR_AUTH_EXPIRED_ACTION_CODE);

    /* auth_time has whole seconds: 5 s after it the 4 s window (asked for in both flavors) has
     * surely passed. */
    while ((int64_t)time(NULL) * 1000 < signed_in + 5000) sleep_ms(100);
    CHECK_CODE(fbs_auth_update_password(auth, "newer-horse", NULL), FBS_ERR_AUTH_REQUIRES_RECENT_LOGIN);
    fbs_credential *credential = NULL;
    REQUIRE_OK(fbs_credential_email("eve@example.com", "correct-horse", &credential));
    REQUIRE_OK(fbs_auth_reauthenticate(auth, credential, &user));
    CHECK(fbs_user_auth_time(user) > signed_in);
    fbs_user_free(user);
    fbs_credential_free(credential);
    REQUIRE_OK(fbs_auth_update_password(auth, "newer-horse", NULL));
    REQUIRE_OK(fbs_auth_sign_out(auth));
    REQUIRE_OK(fbs_auth_sign_in_with_email(auth, "eve@example.com", "newer-horse", NULL));
    free(code);
    fbs_auth_free(auth);
    emulator_stop(e);
}

TEST_OFFLINE(account_bad_arguments_fail_at_once) {
    fbs_credential *credential = (fbs_credential *)1;
    CHECK_CODE(fbs_credential_email("", "x", &credential), FBS_ERR_INVALID_ARGUMENT);
    CHECK_CODE(fbs_credential_email("a@example.com", NULL, &credential), FBS_ERR_INVALID_ARGUMENT);
    CHECK_CODE(fbs_credential_idp("github.com", NULL, NULL, &credential), FBS_ERR_INVALID_ARGUMENT);
    CHECK_CODE(fbs_credential_idp("password", "token", NULL, &credential), FBS_ERR_INVALID_ARGUMENT);
    CHECK_CODE(fbs_credential_idp("google.com", "", NULL, &credential), FBS_ERR_INVALID_ARGUMENT);
    CHECK_CODE(fbs_credential_idp("google.com", "\xff\xfe", NULL, &credential), FBS_ERR_INVALID_ARGUMENT);
    CHECK_CODE(fbs_credential_oauth("apple.com", NULL, "raw nonce", "access", NULL, &credential), FBS_ERR_INVALID_ARGUMENT);
    CHECK_CODE(fbs_credential_oauth("twitter.com", NULL, NULL, NULL, "secret", &credential), FBS_ERR_INVALID_ARGUMENT);
    CHECK_CODE(fbs_credential_oauth("twitter.com", NULL, NULL, "token", "", &credential), FBS_ERR_INVALID_ARGUMENT);
    CHECK_CODE(fbs_credential_oauth("", "token", NULL, NULL, NULL, &credential), FBS_ERR_INVALID_ARGUMENT);
    CHECK_CODE(fbs_credential_email("a@example.com", "x", NULL), FBS_ERR_INVALID_ARGUMENT);
    fbs_credential_free(NULL);

    fbs_auth *auth = NULL;
    REQUIRE_OK(fbs_auth_new("fake-api-key", "demo-project", &auth));
    REQUIRE_OK(fbs_credential_email("a@example.com", "correct-horse", &credential));
    CHECK_CODE(fbs_auth_link_with_credential(auth, credential, NULL), FBS_ERR_AUTH_NO_USER);
    CHECK_CODE(fbs_auth_reauthenticate(auth, credential, NULL), FBS_ERR_AUTH_NO_USER);
    CHECK_CODE(fbs_auth_sign_in_with_credential(auth, NULL, NULL), FBS_ERR_INVALID_ARGUMENT);
    char *methods = NULL;
    CHECK_CODE(fbs_auth_fetch_sign_in_methods(auth, "", &methods), FBS_ERR_INVALID_ARGUMENT);
    CHECK_CODE(fbs_auth_fetch_sign_in_methods(auth, "a@example.com", NULL), FBS_ERR_INVALID_ARGUMENT);
    CHECK(methods == NULL);
    CHECK_CODE(fbs_auth_sign_in_with_credential(auth, (const fbs_credential *)auth, NULL), FBS_ERR_INVALID_ARGUMENT);
    CHECK_CODE(fbs_auth_unlink(auth, "google.com", NULL), FBS_ERR_AUTH_NO_USER);
    CHECK_CODE(fbs_auth_reload(auth, NULL), FBS_ERR_AUTH_NO_USER);
    CHECK_CODE(fbs_auth_send_email_verification(auth), FBS_ERR_AUTH_NO_USER);
    CHECK_CODE(fbs_auth_update_email(auth, "b@example.com", NULL), FBS_ERR_AUTH_NO_USER);
    CHECK_CODE(fbs_auth_apply_action_code(auth, ""), FBS_ERR_INVALID_ARGUMENT);
    CHECK_CODE(fbs_auth_confirm_password_reset(auth, "code", NULL), FBS_ERR_INVALID_ARGUMENT);
    CHECK_CODE(fbs_auth_verify_password_reset_code(auth, "code", NULL), FBS_ERR_INVALID_ARGUMENT);
    CHECK_CODE(fbs_auth_send_password_reset_email(auth, ""), FBS_ERR_INVALID_ARGUMENT);
    fbs_credential_free(credential);
    fbs_auth_free(auth);
}
