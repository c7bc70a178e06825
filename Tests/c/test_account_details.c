/* test_account_details.c — what fbstorage/auth.h tells of an account against the bundled emulator
 * (both flavors): a user's sign-in methods (provider data) and dates (creation, last sign-in) as
 * accounts:lookup reports them after a reload or an account change, and fbs_auth_check_action_code
 * on each kind of mailed code (the code stays usable), sync and _async, with its errors. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "events.h"

static int64_t wall_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

/* A fresh address: the flavors' emulators outlive one test. */
static void new_address(char *out, size_t size, const char *name) {
    static int counter;
    snprintf(out, size, "%s-%d-%d@example.com", name, (int)getpid(), ++counter);
}

/* The index of `provider_id` among the user's sign-in methods; -1 when absent. */
static int provider_index(const fbs_user *user, const char *provider_id) {
    for (size_t i = 0; i < fbs_user_provider_count(user); i++) {
        if (str_equal(fbs_user_provider_id(user, i), provider_id)) return (int)i;
    }
    return -1;
}

TEST(account_details_list_providers_and_dates) {
    fbs_auth *auth = auth_for(EMU);
    char address[96];
    new_address(address, sizeof address, "details");
    int64_t before = wall_ms();
    fbs_user *user = NULL;
    REQUIRE_OK(fbs_auth_create_user(auth, address, "correct-horse", &user));
    int64_t after = wall_ms();
    /* The sign-in read the account (as the SDKs do): its methods and dates are there at once,
     * and a reload finds the same. */
    int64_t created_at_sign_in = fbs_user_creation_time(user);
    CHECK_EQ_INT((long long)fbs_user_provider_count(user), 1);
    CHECK_STR(fbs_user_provider_id(user, 0), "password");
    CHECK(created_at_sign_in >= before - 1000 && created_at_sign_in <= after + 1000);
    fbs_user_free(user);

    REQUIRE_OK(fbs_auth_reload(auth, &user));
    CHECK(fbs_user_creation_time(user) == created_at_sign_in);
    REQUIRE(fbs_user_provider_count(user) == 1);
    CHECK_STR(fbs_user_provider_id(user, 0), "password");
    CHECK_STR(fbs_user_provider_uid(user, 0), address);
    CHECK_STR(fbs_user_provider_email(user, 0), address);
    CHECK(fbs_user_provider_display_name(user, 0) == NULL);
    CHECK(fbs_user_provider_phone_number(user, 0) == NULL);
    CHECK(fbs_user_provider_id(user, 1) == NULL);   /* out of range */
    CHECK(fbs_user_provider_uid(user, (size_t)-1) == NULL);
    int64_t created = fbs_user_creation_time(user), signed_in = fbs_user_last_sign_in_time(user);
    CHECK(created >= before - 1000 && created <= after + 1000);
    CHECK(signed_in >= created && signed_in <= after + 1000);
    fbs_user_free(user);

    /* Linking Google adds its entry, with what the identity provider told. */
    fbs_credential *google = NULL;
    char token[256];
    snprintf(token, sizeof token, "{\"sub\":\"google-details-%d\",\"email\":\"%s\",\"name\":\"Ann Lee\","
             "\"picture\":\"https://example.com/ann.png\"}", (int)getpid(), address);
    REQUIRE_OK(fbs_credential_idp("google.com", token, NULL, &google));
    REQUIRE_OK(fbs_auth_link_with_credential(auth, google, &user));
    CHECK_EQ_INT((long long)fbs_user_provider_count(user), 2);
    int at = provider_index(user, "google.com");
    REQUIRE(at >= 0);
    char google_uid[64];
    snprintf(google_uid, sizeof google_uid, "google-details-%d", (int)getpid());
    CHECK_STR(fbs_user_provider_uid(user, (size_t)at), google_uid);
    CHECK_STR(fbs_user_provider_email(user, (size_t)at), address);
    CHECK_STR(fbs_user_provider_display_name(user, (size_t)at), "Ann Lee");
    CHECK_STR(fbs_user_provider_photo_url(user, (size_t)at), "https://example.com/ann.png");
    CHECK(provider_index(user, "password") >= 0);
    CHECK(fbs_user_creation_time(user) == created);
    fbs_user_free(user);

    /* Unlinking removes it; the snapshot in hand keeps what it showed. */
    fbs_user *linked = NULL;
    REQUIRE_OK(fbs_auth_current_user(auth, &linked));
    REQUIRE_OK(fbs_auth_unlink(auth, "google.com", &user));
    CHECK_EQ_INT((long long)fbs_user_provider_count(user), 1);
    CHECK_EQ_INT(provider_index(user, "google.com"), -1);
    CHECK_EQ_INT((long long)fbs_user_provider_count(linked), 2);
    fbs_user_free(user);
    fbs_user_free(linked);

    /* A bad handle. */
    CHECK_EQ_INT((long long)fbs_user_provider_count(NULL), 0);
    CHECK(fbs_user_provider_email((const fbs_user *)auth, 0) == NULL);
    CHECK(strstr(fbs_last_error_message(), "user") != NULL);
    CHECK(fbs_user_creation_time(NULL) == FBS_TIME_ABSENT);
    fbs_credential_free(google);
    fbs_auth_free(auth);
}

typedef struct {
    completion done;
    char operation[64], email[96], new_email[96];
    int email_absent, new_email_absent;
} checked_code;

static void on_checked(int status, const char *operation, const char *email, const char *new_email, void *u) {
    checked_code *c = u;
    snprintf(c->operation, sizeof c->operation, "%s", operation ? operation : "");
    snprintf(c->email, sizeof c->email, "%s", email ? email : "");
    snprintf(c->new_email, sizeof c->new_email, "%s", new_email ? new_email : "");
    c->email_absent = email == NULL;
    c->new_email_absent = new_email == NULL;
    completion_record(&c->done, status);
}

/* Checks `code` with the blocking call: its operation, email and new email (NULL: absent). */
static void check_code_is(fbs_auth *auth, const char *code, const char *operation, const char *email,
                          const char *new_email) {
    char *got_operation = NULL, *got_email = NULL, *got_new_email = NULL;
    REQUIRE_OK(fbs_auth_check_action_code(auth, code, &got_operation, &got_email, &got_new_email));
    CHECK_STR(got_operation, operation);
    CHECK_STR(got_email, email);
    CHECK_STR(got_new_email, new_email);
    fbs_string_free(got_operation);
    fbs_string_free(got_email);
    fbs_string_free(got_new_email);
}

TEST(account_details_check_action_codes) {
    fbs_auth *auth = auth_for(EMU);
    char address[96], changed[96];
    new_address(address, sizeof address, "check");
    new_address(changed, sizeof changed, "changed");
    REQUIRE_OK(fbs_auth_create_user(auth, address, "correct-horse", NULL));

    REQUIRE_OK(fbs_auth_send_email_verification(auth));
    char *verify = emu_pending_oob(EMU, "VERIFY_EMAIL", address, "oobCode");
    REQUIRE(verify != NULL);
    check_code_is(auth, verify, "VERIFY_EMAIL", address, NULL);
    REQUIRE_OK(fbs_auth_apply_action_code(auth, verify));   /* checking did not use it up */
    CHECK_CODE(fbs_auth_check_action_code(auth, verify, &(char *){NULL}, NULL, NULL), FBS_ERR_AUTH_INVALID_ACTION_CODE);

    REQUIRE_OK(fbs_auth_send_password_reset_email(auth, address));
    char *reset = emu_pending_oob(EMU, "PASSWORD_RESET", address, "oobCode");
    REQUIRE(reset != NULL);
    char *operation = NULL;
    REQUIRE_OK(fbs_auth_check_action_code(auth, reset, &operation, NULL, NULL));   /* only the operation wanted */
    CHECK_STR(operation, "PASSWORD_RESET");
    fbs_string_free(operation);

    REQUIRE_OK(fbs_auth_verify_before_update_email(auth, changed));
    char *change = emu_pending_oob(EMU, "VERIFY_AND_CHANGE_EMAIL", address, "oobCode");   /* listed under the old address */
    REQUIRE(change != NULL);
    checked_code checked;
    completion_init(&checked.done);
    REQUIRE_OK(fbs_auth_check_action_code_async(auth, change, on_checked, &checked));
    REQUIRE(completion_wait(&checked.done, 30000));
    CHECK_CODE(checked.done.status, FBS_OK);
    CHECK_STR(checked.operation, "VERIFY_AND_CHANGE_EMAIL");
    CHECK_STR(checked.email, address);
    CHECK_STR(checked.new_email, changed);

    /* The sign-in code of an email link does not reveal its address. */
    fbs_action_code_settings *settings = NULL;
    REQUIRE_OK(fbs_action_code_settings_new("https://app.example.com/finish", 1, &settings));
    REQUIRE_OK(fbs_auth_send_sign_in_link_to_email(auth, address, settings));
    char *sign_in = emu_pending_oob(EMU, "EMAIL_SIGNIN", address, "oobCode");
    REQUIRE(sign_in != NULL);
    check_code_is(auth, sign_in, "EMAIL_SIGNIN", NULL, NULL);

    /* Failures: synchronously and through the callback, the code never in the message. */
    CHECK_CODE(fbs_auth_check_action_code(auth, "no-such-code", &operation, NULL, NULL), FBS_ERR_AUTH_INVALID_ACTION_CODE);
    completion_init(&checked.done);
    REQUIRE_OK(fbs_auth_check_action_code_async(auth, "no-such-code", on_checked, &checked));
    REQUIRE(completion_wait(&checked.done, 30000));
    CHECK_CODE(checked.done.status, FBS_ERR_AUTH_INVALID_ACTION_CODE);
    CHECK_STR(checked.operation, "");
    CHECK(checked.email_absent && checked.new_email_absent);
    CHECK_CODE(fbs_auth_check_action_code(auth, reset, NULL, NULL, NULL), FBS_ERR_INVALID_ARGUMENT);
    CHECK_CODE(fbs_auth_check_action_code(auth, "", &operation, NULL, NULL), FBS_ERR_INVALID_ARGUMENT);
    CHECK_CODE(fbs_auth_check_action_code(auth, NULL, &operation, NULL, NULL), FBS_ERR_INVALID_ARGUMENT);
    CHECK_CODE(fbs_auth_check_action_code(NULL, reset, &operation, NULL, NULL), FBS_ERR_INVALID_ARGUMENT);
    CHECK_CODE(fbs_auth_check_action_code_async(auth, reset, NULL, NULL), FBS_ERR_INVALID_ARGUMENT);
    REQUIRE_OK(fbs_auth_confirm_password_reset(auth, reset, "battery-staple"));   /* still usable */

    free(sign_in);
    free(change);
    free(reset);
    free(verify);
    fbs_action_code_settings_free(settings);
    fbs_auth_free(auth);
}
