/* fbstorage/app_check.h — Firebase App Check: the attestation token storages send
 * Part of fbstorage.h (include that one); the conventions stated there hold here. */
#ifndef FBSTORAGE_APP_CHECK_H
#define FBSTORAGE_APP_CHECK_H

#include "common.h"
#include "storage.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------
 * App Check — one per Firebase app (project id, app id), usable by any number of storages.
 *
 * A project that enforces App Check on Cloud Storage refuses every request without a valid
 * "X-Firebase-AppCheck" token (HTTP 401, "Firebase App Check token is invalid."), whatever the
 * user and the rules. An App Check gets tokens from its provider — the debug provider, a custom
 * provider (your backend attests the device and mints tokens), or a token minted elsewhere —
 * and keeps one fresh: renewed when less than min(5 minutes, half its lifetime) is left, and
 * once when a storage request gets App Check's 401 (that request is then sent once more with
 * the fresh token). Concurrent requests share one renewal; requests whose token is fresh never
 * wait. Storages send it on every request, resumable upload chunks included.
 *
 * Endpoint of the token exchange (the debug provider's): production,
 * https://firebaseappcheck.googleapis.com/v1/projects/{project}/apps/{app}:exchangeDebugToken,
 * unless FIREBASE_APP_CHECK_EMULATOR_HOST=host:port is set when the App Check is created, or
 * fbs_app_check_use_emulator() is called: then
 * http://host:port/firebaseappcheck.googleapis.com/v1/… (the bundled emulator serves it on its
 * storage port). No Firebase SDK defines an App Check emulator variable; this one is ours.
 *
 * Threads: each App Check owns a transfer thread and a callback thread; custom providers, token
 * listeners and the completions of _async calls run on its callback thread, one call at a time.
 *
 * Errors: a storage request refused by Storage for its App Check token fails with
 * FBS_ERR_APP_CHECK_TOKEN_INVALID (a token was sent, and a fresh one was refused too) or
 * FBS_ERR_APP_CHECK_TOKEN_MISSING (none was sent: no App Check, or one without a provider),
 * never with FBS_ERR_UNAUTHENTICATED; a request whose provider fails fails with the provider's
 * error (FBS_ERR_APP_CHECK_PROVIDER_FAILED, FBS_ERR_APP_CHECK_ATTESTATION_FAILED,
 * FBS_ERR_RETRY_LIMIT_EXCEEDED when the exchange cannot be reached before the operation
 * deadline, 120 s). App Check tokens, debug secrets and API keys never appear in log lines or
 * error messages.
 * ---------------------------------------------------------------------------------------- */
typedef struct fbs_app_check fbs_app_check;

/* Creates an App Check for the app app_id ("1:1234:web:abcd", as the Firebase console shows
 * it) of project_id. api_key (may be NULL) is sent as X-Goog-Api-Key with the exchange, as the
 * Apple SDK does; production needs it, the emulator does not. It has no provider yet: storages
 * using it send no token until one is set.
 * Ownership: *out is the caller's; release it with fbs_app_check_free().
 * Errors: FBS_ERR_INVALID_ARGUMENT (NULL or empty ids; an id with a character other than
 * letters, digits and ":._-"; an empty api_key; a malformed FIREBASE_APP_CHECK_EMULATOR_HOST). */
int fbs_app_check_new(const char *project_id, const char *app_id, const char *api_key, fbs_app_check **out);

/* Releases the handle. Storages that use this App Check keep it alive until they are freed or
 * switch away from it; then its threads stop and its provider is released (a custom provider's
 * destroy callback runs). Its token listeners are removed now (their destroy callbacks run
 * before this returns, unless called from one of them). NULL is a no-op. */
void fbs_app_check_free(fbs_app_check *app_check);

/* Sends the token exchange to an emulator at http://host:port (host and port checked as
 * fbs_storage_use_emulator()). */
int fbs_app_check_use_emulator(fbs_app_check *app_check, const char *host, int port);

/* Renews the kept token in the background before requests need it, as the SDKs' token
 * refreshers do (enabled non-zero): halfway through each kept token's life, and after a failed
 * renewal again with backoff (1 s, doubling, at most 5 minutes) until one succeeds; token
 * listeners hear of each renewed token. Off by default: a token is then renewed when a request
 * needs one (with min(5 minutes, half its life) left), and that request waits for it. The first
 * token is always asked for by a request; a token given with fbs_app_check_set_token() is never
 * refreshed. Errors: FBS_ERR_INVALID_ARGUMENT (a bad handle). */
int fbs_app_check_set_token_auto_refresh_enabled(fbs_app_check *app_check, int enabled);
/* 1 when auto-refresh is on, 0 when off, -1 on a bad handle. */
int fbs_app_check_is_token_auto_refresh_enabled(const fbs_app_check *app_check);

/* The debug provider: exchanges debug_token, a secret registered in the Firebase console
 * (App Check, Manage debug tokens) or with the emulator's --app-check-debug-token, for App
 * Check tokens. debug_token NULL reads it from the environment, the first set of
 * FIREBASE_APP_CHECK_DEBUG_TOKEN (ours), FIRAAppCheckDebugToken and AppCheckDebugToken (the
 * names the Apple SDK reads, so one CI secret serves both). For CI and development only.
 * Replaces any other provider and drops its token.
 * Errors: FBS_ERR_INVALID_ARGUMENT (an empty token or one with a control character; NULL and
 * none of the variables set). Later, the requests that need a token: FBS_ERR_APP_CHECK_ATTESTATION_FAILED
 * when the service does not know the secret. */
int fbs_app_check_set_debug_provider(fbs_app_check *app_check, const char *debug_token);

/* A custom provider: fn runs on the App Check's callback thread whenever a token is needed
 * (limited_use = 1 for fbs_app_check_get_limited_use_token()), and answers exactly once, at
 * once or later, from any thread, with fbs_app_check_request_complete() or
 * fbs_app_check_request_fail(). The request handle is the library's. Typically fn asks your
 * backend, which attests the device and mints a token with firebase-admin's
 * app_check.create_token (or the exchange's :exchangeCustomToken). A request not answered within
 * 120 s fails with FBS_ERR_APP_CHECK_PROVIDER_FAILED (its late answer then returns
 * FBS_ERR_INVALID_ARGUMENT), so storage requests never wait for good. Replaces any other
 * provider and drops its token; fn = NULL removes the provider. */
typedef struct fbs_app_check_request fbs_app_check_request;
typedef void (*fbs_app_check_provider)(int limited_use, fbs_app_check_request *request, void *user_data);
int fbs_app_check_set_custom_provider(fbs_app_check *app_check, fbs_app_check_provider fn, void *user_data);
/* As fbs_app_check_set_custom_provider(), with a destroy callback for user_data (may be NULL;
 * see fbs_destroy_notify). It is called once, when the provider has been replaced or removed
 * (or the App Check released by its handle and every storage) and every request it was given
 * has been answered. It runs with no library lock held. With fn NULL, or when the call fails,
 * destroy is called at once. */
int fbs_app_check_set_custom_provider_full(fbs_app_check *app_check, fbs_app_check_provider fn,
                                           void *user_data, fbs_destroy_notify destroy);

/* Answers a request with token, valid until expire_time_ms (milliseconds since the Unix epoch,
 * UTC), and releases the request handle.
 * Errors: FBS_ERR_INVALID_ARGUMENT (a request already answered; a NULL, empty or non-UTF-8
 * token, one with a control character, or an expire_time_ms already past: the waiting request
 * then fails with FBS_ERR_APP_CHECK_PROVIDER_FAILED). */
int fbs_app_check_request_complete(fbs_app_check_request *request, const char *token, int64_t expire_time_ms);
/* Fails the waiting request with FBS_ERR_APP_CHECK_PROVIDER_FAILED and `message` (may be NULL),
 * and releases the request handle. Errors: FBS_ERR_INVALID_ARGUMENT (already answered). */
int fbs_app_check_request_fail(fbs_app_check_request *request, const char *message);

/* An already-minted token (your backend's, another process's), used until expire_time_ms
 * (milliseconds since the Unix epoch); after that, requests fail with
 * FBS_ERR_APP_CHECK_PROVIDER_FAILED until a new one is set. It is no limited-use token.
 * Replaces any other provider; token listeners hear of the token at once.
 * Errors: FBS_ERR_INVALID_ARGUMENT (NULL, empty or invalid token; an expire_time_ms already past). */
int fbs_app_check_set_token(fbs_app_check *app_check, const char *token, int64_t expire_time_ms);

/* The current token, renewed first when it is about to expire or force_refresh is non-zero
 * (blocks until the provider answers). out_expire_time_ms may be NULL.
 * Ownership: *out_token is the caller's; release it with fbs_string_free().
 * Errors: FBS_ERR_APP_CHECK_NO_PROVIDER, or the provider's error (see above). */
int fbs_app_check_get_token(fbs_app_check *app_check, int force_refresh, char **out_token,
                            int64_t *out_expire_time_ms);

/* A new limited-use token, for one replay-protected call of your own backend: asked of the
 * provider each time (the exchange with "limitedUse": true), never cached nor sent by storages.
 * Ownership and errors as fbs_app_check_get_token(). */
int fbs_app_check_get_limited_use_token(fbs_app_check *app_check, char **out_token, int64_t *out_expire_time_ms);

/* The _async forms of the two calls above: they return at once; cb runs once on the App
 * Check's callback thread with FBS_OK and the token (borrowed for the call) and its expiry, or
 * with the error code, NULL and 0 (fbs_last_error_message() tells why during the call).
 * Errors at the call: FBS_ERR_INVALID_ARGUMENT (a bad handle, cb NULL). */
typedef void (*fbs_app_check_token_callback)(int status, const char *token, int64_t expire_time_ms, void *user_data);
int fbs_app_check_get_token_async(fbs_app_check *app_check, int force_refresh, fbs_app_check_token_callback cb,
                                  void *user_data);
int fbs_app_check_get_limited_use_token_async(fbs_app_check *app_check, fbs_app_check_token_callback cb, void *user_data);

/* Token listeners (the JS SDK's onTokenChanged): cb runs on the App Check's callback thread once
 * for every token the App Check keeps — each renewal's (the provider's answer to a refresh,
 * forced or due; heard even when the provider answers the same token again, as a minted token's
 * renewal does), a token given with fbs_app_check_set_token() — and once at registration when
 * a fresh token is kept already. Never for limited-use tokens, nor for a renewal the previous
 * provider answers after it was replaced (by any fbs_app_check_set_* call). token is lent for the call
 * only; expire_time_ms is its expiry (milliseconds since the Unix epoch). cb may call fbs_
 * functions, fbs_app_check_remove_token_listener() of itself included.
 * Ownership: user_data passes to the library (see fbs_destroy_notify); destroy (may be NULL)
 * runs once, when the listener is removed or the App Check handle freed (fbs_app_check_free()),
 * or at once when the call fails. *out_handle identifies the listener for removal.
 * Errors: FBS_ERR_INVALID_ARGUMENT (a bad app_check handle; NULL cb or out_handle). */
typedef void (*fbs_app_check_token_listener)(const char *token, int64_t expire_time_ms, void *user_data);
int fbs_app_check_add_token_listener(fbs_app_check *app_check, fbs_app_check_token_listener cb, void *user_data,
                                     fbs_destroy_notify destroy, fbs_listener_handle *out_handle);
/* Removes a token listener. After it returns (off the callback thread) the listener does not
 * run again and its destroy has run; called from the listener itself, it returns at once and
 * destroy runs when that call returns.
 * Errors: FBS_ERR_INVALID_ARGUMENT (a bad app_check handle; a handle not registered with it). */
int fbs_app_check_remove_token_listener(fbs_app_check *app_check, fbs_listener_handle handle);

/* From now on every request of the storage, tasks already running included, carries a token of
 * app_check ("X-Firebase-AppCheck"; none while it has no provider). Replaces a token set with
 * fbs_storage_set_app_check_token(); app_check = NULL detaches. The storage keeps app_check
 * alive. Errors: FBS_ERR_INVALID_ARGUMENT (a bad handle). */
int fbs_storage_use_app_check(fbs_storage *storage, fbs_app_check *app_check);

#ifdef __cplusplus
}
#endif

#endif /* FBSTORAGE_APP_CHECK_H */
