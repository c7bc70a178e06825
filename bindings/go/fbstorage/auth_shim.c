#include "shim.h"
#include "_cgo_export.h"

static void user_done(int status, const fbs_user *u, void *h) { fbsgoUserDone(status, (fbs_user *)u, (uintptr_t)h); }
static void listener(const fbs_user *u, void *key) { fbsgoAuthListener((fbs_user *)u, (uintptr_t)key); }

int fbsgo_auth_sign_in_anonymously_async(fbs_auth *a, uintptr_t h) { return fbs_auth_sign_in_anonymously_async(a, user_done, (void *)h); }
int fbsgo_auth_create_user_async(fbs_auth *a, const char *email, const char *password, uintptr_t h) {
    return fbs_auth_create_user_async(a, email, password, user_done, (void *)h);
}
int fbsgo_auth_sign_in_with_email_async(fbs_auth *a, const char *email, const char *password, uintptr_t h) {
    return fbs_auth_sign_in_with_email_async(a, email, password, user_done, (void *)h);
}
int fbsgo_auth_sign_in_with_custom_token_async(fbs_auth *a, const char *token, uintptr_t h) {
    return fbs_auth_sign_in_with_custom_token_async(a, token, user_done, (void *)h);
}
int fbsgo_auth_sign_in_with_refresh_token_async(fbs_auth *a, const char *token, uintptr_t h) {
    return fbs_auth_sign_in_with_refresh_token_async(a, token, user_done, (void *)h);
}
int fbsgo_auth_delete_user_async(fbs_auth *a, uintptr_t h) { return fbs_auth_delete_user_async(a, fbsgo_completion, (void *)h); }
int fbsgo_auth_get_id_token_async(fbs_auth *a, int force_refresh, uintptr_t h) {
    return fbs_auth_get_id_token_async(a, force_refresh, fbsgo_string_done, (void *)h);
}
int fbsgo_auth_add_listener(fbs_auth *a, int id_token, uintptr_t key, fbs_listener_handle *out) {
    return id_token ? fbs_auth_add_id_token_listener(a, listener, (void *)key, out)
                    : fbs_auth_add_state_listener(a, listener, (void *)key, out);
}

int fbsgo_auth_sign_in_with_credential_async(fbs_auth *a, const fbs_credential *c, uintptr_t h) {
    return fbs_auth_sign_in_with_credential_async(a, c, user_done, (void *)h);
}
int fbsgo_auth_link_with_credential_async(fbs_auth *a, const fbs_credential *c, uintptr_t h) {
    return fbs_auth_link_with_credential_async(a, c, user_done, (void *)h);
}
int fbsgo_auth_reauthenticate_async(fbs_auth *a, const fbs_credential *c, uintptr_t h) {
    return fbs_auth_reauthenticate_async(a, c, user_done, (void *)h);
}
int fbsgo_auth_unlink_async(fbs_auth *a, const char *provider_id, uintptr_t h) {
    return fbs_auth_unlink_async(a, provider_id, user_done, (void *)h);
}
int fbsgo_auth_update_email_async(fbs_auth *a, const char *email, uintptr_t h) {
    return fbs_auth_update_email_async(a, email, user_done, (void *)h);
}
int fbsgo_auth_update_password_async(fbs_auth *a, const char *password, uintptr_t h) {
    return fbs_auth_update_password_async(a, password, user_done, (void *)h);
}
int fbsgo_auth_reload_async(fbs_auth *a, uintptr_t h) { return fbs_auth_reload_async(a, user_done, (void *)h); }
int fbsgo_auth_send_email_verification_async(fbs_auth *a, uintptr_t h) {
    return fbs_auth_send_email_verification_async(a, fbsgo_completion, (void *)h);
}
int fbsgo_auth_verify_before_update_email_async(fbs_auth *a, const char *email, uintptr_t h) {
    return fbs_auth_verify_before_update_email_async(a, email, fbsgo_completion, (void *)h);
}
int fbsgo_auth_send_password_reset_email_async(fbs_auth *a, const char *email, uintptr_t h) {
    return fbs_auth_send_password_reset_email_async(a, email, fbsgo_completion, (void *)h);
}
int fbsgo_auth_verify_password_reset_code_async(fbs_auth *a, const char *code, uintptr_t h) {
    return fbs_auth_verify_password_reset_code_async(a, code, fbsgo_string_done, (void *)h);
}
int fbsgo_auth_fetch_sign_in_methods_async(fbs_auth *a, const char *email, uintptr_t h) {
    return fbs_auth_fetch_sign_in_methods_async(a, email, fbsgo_string_done, (void *)h);
}
int fbsgo_auth_confirm_password_reset_async(fbs_auth *a, const char *code, const char *new_password, uintptr_t h) {
    return fbs_auth_confirm_password_reset_async(a, code, new_password, fbsgo_completion, (void *)h);
}
int fbsgo_auth_apply_action_code_async(fbs_auth *a, const char *code, uintptr_t h) {
    return fbs_auth_apply_action_code_async(a, code, fbsgo_completion, (void *)h);
}

int fbsgo_auth_send_sign_in_link_to_email_async(fbs_auth *a, const char *email, const fbs_action_code_settings *settings,
                                                uintptr_t h) {
    return fbs_auth_send_sign_in_link_to_email_async(a, email, settings, fbsgo_completion, (void *)h);
}
int fbsgo_auth_sign_in_with_email_link_async(fbs_auth *a, const char *email, const char *link, uintptr_t h) {
    return fbs_auth_sign_in_with_email_link_async(a, email, link, user_done, (void *)h);
}
static void action_code_done(int status, const char *operation, const char *email, const char *new_email, void *h) {
    fbsgoActionCodeDone(status, (char *)operation, (char *)email, (char *)new_email, (uintptr_t)h);
}
int fbsgo_auth_check_action_code_async(fbs_auth *a, const char *code, uintptr_t h) {
    return fbs_auth_check_action_code_async(a, code, action_code_done, (void *)h);
}
