/* test_email_link.c — email-link sign-in of fbstorage/auth.h against the bundled emulator (both
 * flavors): the link read from the emulator's oobCodes route as a mail reader would, sign-in with
 * it (a new account, email verified; then the same account), the _async forms, the link checks,
 * action code settings, and the error of each failure. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "events.h"

static const char *const CONTINUE_URL = "https://app.example.com/finish?cart=12";

static fbs_action_code_settings *sign_in_settings(void) {
    fbs_action_code_settings *settings = NULL;
    REQUIRE_OK(fbs_action_code_settings_new(CONTINUE_URL, 1, &settings));
    REQUIRE_OK(fbs_action_code_settings_set_ios_bundle_id(settings, "com.example.ios"));
    REQUIRE_OK(fbs_action_code_settings_set_android_package_name(settings, "com.example.android", 1, "12"));
    return settings;
}

/* A fresh address: the flavors' emulators outlive one test. */
static void new_address(char *out, size_t size, const char *name) {
    static int counter;
    snprintf(out, size, "%s-%d-%d@example.com", name, (int)getpid(), ++counter);
}

static void on_done(int status, void *u) { completion_record(u, status); }

static void on_user(int status, const fbs_user *user, void *u) {
    completion *c = u;
    snprintf(c->text, sizeof c->text, "%s", user ? fbs_user_uid(user) : "");
    c->number = user ? fbs_user_is_email_verified(user) : -1;
    completion_record(c, status);
}

TEST(email_link_signs_in_a_new_account_then_the_same_one) {
    fbs_auth *auth = auth_for(EMU);
    fbs_action_code_settings *settings = sign_in_settings();
    char address[96];
    new_address(address, sizeof address, "link");
    REQUIRE_OK(fbs_auth_send_sign_in_link_to_email(auth, address, settings));
    char *link = emu_pending_oob(EMU, "EMAIL_SIGNIN", address, "oobLink");
    REQUIRE(link != NULL);
    CHECK(strstr(link, "continueUrl=https%3A%2F%2Fapp.example.com%2Ffinish%3Fcart%3D12") != NULL);
    CHECK_EQ_INT(fbs_auth_is_sign_in_with_email_link(auth, link), 1);

    fbs_user *user = NULL;
    REQUIRE_OK(fbs_auth_sign_in_with_email_link(auth, address, link, &user));
    CHECK_STR(fbs_user_email(user), address);
    CHECK_EQ_INT(fbs_user_is_email_verified(user), 1);
    CHECK_EQ_INT(fbs_user_is_anonymous(user), 0);
    CHECK_STR(fbs_user_sign_in_provider(user), "password");
    CHECK(strstr(fbs_user_claims_json(user), "\"email_verified\":true") != NULL);
    char *uid = strdup(fbs_user_uid(user));
    fbs_user_free(user);
    CHECK_CODE(fbs_auth_sign_in_with_email_link(auth, address, link, NULL), FBS_ERR_AUTH_INVALID_ACTION_CODE);
    free(link);

    /* The _async forms; the same account signs in again. */
    REQUIRE_OK(fbs_auth_sign_out(auth));
    completion sent;
    completion_init(&sent);
    REQUIRE_OK(fbs_auth_send_sign_in_link_to_email_async(auth, address, settings, on_done, &sent));
    fbs_action_code_settings_free(settings);   /* the call copied the settings */
    REQUIRE(completion_wait(&sent, 30000));
    CHECK_CODE(sent.status, FBS_OK);
    link = emu_pending_oob(EMU, "EMAIL_SIGNIN", address, "oobLink");
    REQUIRE(link != NULL);
    completion signed_in;
    completion_init(&signed_in);
    REQUIRE_OK(fbs_auth_sign_in_with_email_link_async(auth, address, link, on_user, &signed_in));
    REQUIRE(completion_wait(&signed_in, 30000));
    CHECK_CODE(signed_in.status, FBS_OK);
    CHECK_STR(signed_in.text, uid);
    CHECK_EQ_INT((int)signed_in.number, 1);
    free(link);
    free(uid);
    fbs_auth_free(auth);
}

TEST(email_link_failures_name_their_cause) {
    fbs_auth *auth = auth_for(EMU);
    char address[96], other[96];
    new_address(address, sizeof address, "checked");
    new_address(other, sizeof other, "other");

    fbs_action_code_settings *in_browser = NULL, *relative = NULL;
    REQUIRE_OK(fbs_action_code_settings_new(CONTINUE_URL, 0, &in_browser));
    CHECK_CODE(fbs_auth_send_sign_in_link_to_email(auth, address, in_browser), FBS_ERR_INVALID_ARGUMENT);
    CHECK(strstr(fbs_last_error_message(), "handleCodeInApp") != NULL);
    REQUIRE_OK(fbs_action_code_settings_new("/finish", 1, &relative));
    CHECK_CODE(fbs_auth_send_sign_in_link_to_email(auth, address, relative), FBS_ERR_INVALID_ARGUMENT);
    CHECK(strstr(fbs_last_error_message(), "continue URL") != NULL);
    fbs_action_code_settings *settings = sign_in_settings();
    CHECK_CODE(fbs_auth_send_sign_in_link_to_email(auth, "not-an-email", settings), FBS_ERR_AUTH_INVALID_EMAIL);

    REQUIRE_OK(fbs_auth_send_sign_in_link_to_email(auth, address, settings));
    char *link = emu_pending_oob(EMU, "EMAIL_SIGNIN", address, "oobLink");
    REQUIRE(link != NULL);
    CHECK_CODE(fbs_auth_sign_in_with_email_link(auth, other, link, NULL), FBS_ERR_AUTH_INVALID_EMAIL);
    fbs_user *current = (fbs_user *)1;
    REQUIRE_OK(fbs_auth_current_user(auth, &current));
    CHECK(current == NULL);   /* a failed sign-in signs no one in */

    /* A verification link is not a sign-in link: refused without a request. */
    REQUIRE_OK(fbs_auth_create_user(auth, other, "correct-horse", NULL));
    REQUIRE_OK(fbs_auth_send_email_verification(auth));
    char *verification = emu_pending_oob(EMU, "VERIFY_EMAIL", other, "oobLink");
    REQUIRE(verification != NULL);
    CHECK_EQ_INT(fbs_auth_is_sign_in_with_email_link(auth, verification), 0);
    CHECK_CODE(fbs_auth_sign_in_with_email_link(auth, other, verification, NULL), FBS_ERR_INVALID_ARGUMENT);
    CHECK(strstr(fbs_last_error_message(), "sign-in link") != NULL);
    /* The failures used nothing up. */
    REQUIRE_OK(fbs_auth_sign_in_with_email_link(auth, address, link, NULL));
    free(verification);
    free(link);
    fbs_action_code_settings_free(settings);
    fbs_action_code_settings_free(relative);
    fbs_action_code_settings_free(in_browser);
    fbs_auth_free(auth);
}

TEST_OFFLINE(email_link_checks_links_and_settings_at_once) {
    fbs_auth *auth = NULL;
    REQUIRE_OK(fbs_auth_new("fake-api-key", "demo-project", &auth));
    CHECK_EQ_INT(fbs_auth_is_sign_in_with_email_link(auth, "https://x.example/a?mode=signIn&oobCode=c0de"), 1);
    CHECK_EQ_INT(fbs_auth_is_sign_in_with_email_link(auth, "https://x.example/a?mode=signIn"), 0);
    CHECK_EQ_INT(fbs_auth_is_sign_in_with_email_link(auth, "https://x.example/a?mode=verifyEmail&oobCode=c0de"), 0);
    CHECK_EQ_INT(fbs_auth_is_sign_in_with_email_link(auth,
        "https://x.page.link/?link=https%3A%2F%2Fx.example%2Fa%3Fmode%3DsignIn%26oobCode%3Dc0de&apn=com.x"), 1);
    CHECK_EQ_INT(fbs_auth_is_sign_in_with_email_link(auth, "not a link"), 0);
    CHECK_EQ_INT(fbs_auth_is_sign_in_with_email_link(auth, NULL), 0);
    CHECK_EQ_INT(fbs_auth_is_sign_in_with_email_link(auth, "https://x.example/\xff?mode=signIn&oobCode=c0de"), -1);
    CHECK(strstr(fbs_last_error_message(), "UTF-8") != NULL);
    CHECK_EQ_INT(fbs_auth_is_sign_in_with_email_link(NULL, "https://x.example/a?mode=signIn&oobCode=c0de"), -1);

    fbs_action_code_settings *settings = (fbs_action_code_settings *)1;
    CHECK_CODE(fbs_action_code_settings_new("", 1, &settings), FBS_ERR_INVALID_ARGUMENT);
    CHECK_CODE(fbs_action_code_settings_new(NULL, 1, &settings), FBS_ERR_INVALID_ARGUMENT);
    CHECK_CODE(fbs_action_code_settings_new("https://x.example/\n", 1, &settings), FBS_ERR_INVALID_ARGUMENT);
    REQUIRE_OK(fbs_action_code_settings_new("https://x.example/", 1, &settings));
    CHECK_CODE(fbs_action_code_settings_set_link_domain(settings, ""), FBS_ERR_INVALID_ARGUMENT);
    CHECK_CODE(fbs_action_code_settings_set_ios_bundle_id((fbs_action_code_settings *)auth, "x"), FBS_ERR_INVALID_ARGUMENT);
    REQUIRE_OK(fbs_action_code_settings_set_link_domain(settings, NULL));
    CHECK_CODE(fbs_auth_send_sign_in_link_to_email(auth, "", settings), FBS_ERR_INVALID_ARGUMENT);
    CHECK_CODE(fbs_auth_send_sign_in_link_to_email(auth, "a@example.com", NULL), FBS_ERR_INVALID_ARGUMENT);
    CHECK_CODE(fbs_auth_sign_in_with_email_link(auth, "a@example.com", "https://x.example/", NULL), FBS_ERR_INVALID_ARGUMENT);
    CHECK_CODE(fbs_auth_sign_in_with_email_link(auth, "", "https://x.example/a?mode=signIn&oobCode=c", NULL),
               FBS_ERR_INVALID_ARGUMENT);
    fbs_action_code_settings_free(settings);
    fbs_action_code_settings_free(NULL);
    fbs_auth_free(auth);
}
