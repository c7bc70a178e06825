#include "shim.h"
#include "_cgo_export.h"

/* The custom provider's trampolines: user_data is the provider's registry key. */
static void provider(int limited_use, fbs_app_check_request *request, void *key) {
    fbsgoAppCheckProvider(limited_use, request, (uintptr_t)key);
}
static void provider_released(void *key) { fbsgoAppCheckProviderReleased((uintptr_t)key); }

int fbsgo_app_check_set_custom_provider(fbs_app_check *a, uintptr_t key) {
    return fbs_app_check_set_custom_provider_full(a, provider, (void *)key, provider_released);
}

static void token_done(int status, const char *token, int64_t expire_time_ms, void *h) {
    fbsgoAppCheckTokenDone(status, (char *)token, expire_time_ms, (uintptr_t)h);
}

int fbsgo_app_check_get_token_async(fbs_app_check *a, int force_refresh, uintptr_t h) {
    return fbs_app_check_get_token_async(a, force_refresh, token_done, (void *)h);
}
int fbsgo_app_check_get_limited_use_token_async(fbs_app_check *a, uintptr_t h) {
    return fbs_app_check_get_limited_use_token_async(a, token_done, (void *)h);
}

/* Token listeners' trampolines: user_data is the listener's registry key. */
static void token_listener(const char *token, int64_t expire_time_ms, void *key) {
    fbsgoAppCheckTokenListener((char *)token, expire_time_ms, (uintptr_t)key);
}
static void token_listener_released(void *key) { fbsgoAppCheckTokenListenerReleased((uintptr_t)key); }

int fbsgo_app_check_add_token_listener(fbs_app_check *a, uintptr_t key, fbs_listener_handle *out) {
    return fbs_app_check_add_token_listener(a, token_listener, (void *)key, token_listener_released, out);
}
