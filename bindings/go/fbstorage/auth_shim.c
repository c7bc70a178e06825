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
