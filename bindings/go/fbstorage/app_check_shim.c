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
