/* fbstorage/common.h — versions, codes, library-wide calls, handle and callback types
 * Part of fbstorage.h (include that one); the conventions stated there hold here. */
#ifndef FBSTORAGE_COMMON_H
#define FBSTORAGE_COMMON_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FBS_VERSION_MAJOR 0
#define FBS_VERSION_MINOR 2
#define FBS_VERSION_PATCH 0
#define FBS_VERSION_STRING "0.2.0"
/* Incremented on every incompatible change of this header; compare with fbs_abi_version(). */
#define FBS_ABI_VERSION 2

/* ------------------------------------------------------------------------------------------
 * Codes — the Firebase StorageErrorCode raw values, and fbstorage's own (FBS_ERR_TIMEOUT and after).
 * ---------------------------------------------------------------------------------------- */
typedef enum fbs_error_code {
    FBS_OK                         = 0,
    FBS_ERR_UNKNOWN                = -13000, /* unmapped server status; the message says which */
    FBS_ERR_OBJECT_NOT_FOUND       = -13010, /* HTTP 404 */
    FBS_ERR_BUCKET_NOT_FOUND       = -13011,
    FBS_ERR_PROJECT_NOT_FOUND      = -13012,
    FBS_ERR_QUOTA_EXCEEDED         = -13013, /* HTTP 402; 429 once retries are spent */
    FBS_ERR_UNAUTHENTICATED        = -13020, /* HTTP 401 (after one token refresh) */
    FBS_ERR_UNAUTHORIZED           = -13021, /* HTTP 403 */
    FBS_ERR_RETRY_LIMIT_EXCEEDED   = -13030, /* deadline passed on retryable failures */
    FBS_ERR_NON_MATCHING_CHECKSUM  = -13031, /* uploaded bytes' CRC32C (or MD5) differ from the server's */
    FBS_ERR_DOWNLOAD_SIZE_EXCEEDED = -13032, /* object larger than the caller's max size */
    FBS_ERR_CANCELLED              = -13040, /* the task or operation was cancelled */
    FBS_ERR_INVALID_ARGUMENT       = -13050, /* NULL, bad handle, bad UTF-8, value out of range */
    FBS_ERR_BUCKET_MISMATCH        = -13051, /* URL names another bucket than the storage's */
    FBS_ERR_INTERNAL               = -13052, /* a bug in the library */
    FBS_ERR_PATH                   = -13053, /* bad URL or path: >1024 bytes, CR/LF, root upload */
    FBS_ERR_TIMEOUT                = -13060, /* fbs_task_wait: the timeout passed first; the task goes on */
    FBS_ERR_TLS                    = -13061, /* the server's TLS certificate failed verification (never retried) */
    FBS_ERR_RANGE_NOT_SATISFIABLE  = -13062, /* a byte range reaches past the end of the object */
    FBS_ERR_OBJECT_CHANGED         = -13063, /* the object was replaced (new generation) during a download */
    FBS_ERR_HOST_NOT_FOUND         = -13064, /* the endpoint's host name does not exist (NXDOMAIN; never retried) */
    /* Firebase Auth (fbstorage/auth.h), after the Apple SDK's AuthErrorCode. */
    FBS_ERR_AUTH_INVALID_API_KEY       = -13100, /* the API key is not valid for this project */
    FBS_ERR_AUTH_INVALID_EMAIL         = -13101, /* malformed email address */
    FBS_ERR_AUTH_WRONG_PASSWORD        = -13102, /* wrong password (INVALID_PASSWORD, INVALID_LOGIN_CREDENTIALS) */
    FBS_ERR_AUTH_USER_NOT_FOUND        = -13103, /* no such account (EMAIL_NOT_FOUND, USER_NOT_FOUND): deleted? */
    FBS_ERR_AUTH_EMAIL_ALREADY_IN_USE  = -13104,
    FBS_ERR_AUTH_WEAK_PASSWORD         = -13105, /* fewer than 6 characters */
    FBS_ERR_AUTH_USER_DISABLED         = -13106, /* the account was disabled by an administrator */
    FBS_ERR_AUTH_INVALID_CUSTOM_TOKEN  = -13107, /* malformed, expired, or for another project */
    FBS_ERR_AUTH_TOO_MANY_REQUESTS     = -13108, /* the service throttles this device or account */
    FBS_ERR_AUTH_OPERATION_NOT_ALLOWED = -13109, /* this sign-in provider is disabled in the console */
    FBS_ERR_AUTH_USER_TOKEN_EXPIRED    = -13110, /* the session was revoked (TOKEN_EXPIRED): sign in again */
    FBS_ERR_AUTH_INVALID_REFRESH_TOKEN = -13111, /* the refresh token is malformed or unknown */
    FBS_ERR_AUTH_NO_USER               = -13112, /* the call needs a signed-in user */
    FBS_ERR_AUTH_REQUIRES_RECENT_LOGIN = -13113, /* sign in again before this sensitive call */
    FBS_ERR_AUTH_CREDENTIAL_ALREADY_IN_USE = -13114, /* the credential belongs to another account (FEDERATED_USER_ID_ALREADY_LINKED) */
    FBS_ERR_AUTH_PROVIDER_ALREADY_LINKED = -13115, /* the user already has an identity of this provider */
    FBS_ERR_AUTH_INVALID_ACTION_CODE   = -13116, /* the email action code is malformed, used, or of another kind (INVALID_OOB_CODE) */
    FBS_ERR_AUTH_EXPIRED_ACTION_CODE   = -13117, /* the email action code has expired (EXPIRED_OOB_CODE) */
    FBS_ERR_AUTH_INVALID_CREDENTIAL    = -13118, /* the identity provider's token is malformed or refused (INVALID_IDP_RESPONSE) */
    FBS_ERR_AUTH_ACCOUNT_EXISTS_WITH_DIFFERENT_CREDENTIAL = -13119, /* the email's account signs in another way (needConfirmation) */
    FBS_ERR_AUTH_USER_MISMATCH         = -13120, /* reauthentication with another user's credential */
    FBS_ERR_AUTH_INVALID_USER_TOKEN    = -13121, /* the server refuses the user's ID token (INVALID_ID_TOKEN): sign in again */
    /* Service accounts (fbstorage/admin.h) */
    FBS_ERR_CREDENTIAL_INVALID         = -13200, /* malformed service-account key, or not a service_account key */
    FBS_ERR_CREDENTIAL_CLOCK_SKEW      = -13201, /* the token endpoint says this machine's clock is wrong */
    FBS_ERR_CREDENTIAL_REJECTED        = -13202, /* the token endpoint refused the key (401, invalid_grant) */
    /* App Check (fbstorage/app_check.h) */
    FBS_ERR_APP_CHECK_TOKEN_INVALID    = -13300, /* Storage refused the App Check token sent (401), even a fresh one */
    FBS_ERR_APP_CHECK_TOKEN_MISSING    = -13301, /* Storage enforces App Check; the request carried no token (401) */
    FBS_ERR_APP_CHECK_PROVIDER_FAILED  = -13302, /* the App Check provider failed or answered an unusable token */
    FBS_ERR_APP_CHECK_ATTESTATION_FAILED = -13303, /* the App Check service refused the debug secret or custom token */
    FBS_ERR_APP_CHECK_NO_PROVIDER      = -13304  /* a token was asked of an App Check without a provider */
} fbs_error_code;

/* Times in milliseconds since the Unix epoch (UTC) use this value for "absent". */
#define FBS_TIME_ABSENT INT64_MIN

/* ------------------------------------------------------------------------------------------
 * Library
 * ---------------------------------------------------------------------------------------- */

/* The library's version, e.g. "0.2.0" (FBS_VERSION_STRING of its header). Static string. */
const char *fbs_version(void);

/* The ABI version the library was built with (FBS_ABI_VERSION of its header). */
int fbs_abi_version(void);

/* The last error of the calling thread: set by every failing fbs_ call on it (one returning an
 * error code, or a getter's or *_free's bad handle), and by fbs_task_wait() returning a task's
 * failure. Successful calls leave it as it is, so it can be read after cleaning up. Each thread
 * has its own; another thread's failures never change it.
 * Lifetime: a returned string stays valid, unchanged, until the next failing fbs_ call on this
 * thread replaces the last error (or the thread exits). */

/* A human-readable message for the last failure on the calling thread; "" if none yet.
 * Borrowed (see above). Never NULL. */
const char *fbs_last_error_message(void);

/* The HTTP status of the response behind the last failure on this thread, or 0. */
int fbs_last_error_http_status(void);

/* The body of the server response behind the last failure on this thread, or NULL.
 * Borrowed (see above). */
const char *fbs_last_error_server_response(void);

/* The static name of a code, e.g. "FBS_ERR_OBJECT_NOT_FOUND"; "FBS_ERR_?" for an unknown code. */
const char *fbs_error_name(int code);

/* The index-th named integer constant of this header, as the library was built with it: its
 * static name, e.g. "FBS_ERR_TIMEOUT", with its value in *out_value (out_value may be NULL);
 * NULL when index is past the last (index 0, 1, ... lists them all). Lists every fbs_error_code,
 * fbs_task_status and fbs_log_level value, FBS_TIME_ABSENT, FBS_ABI_VERSION and
 * FBS_VERSION_MAJOR/MINOR/PATCH. For bindings that keep copies of these constants: they check
 * their copies against the library they load (the Python binding does, and refuses a mismatch). */
const char *fbs_constant(size_t index, int64_t *out_value);

/* Releases a string the library returned through a `char **`. NULL is a no-op. */
void fbs_string_free(char *s);

/* Releases bytes returned by fbs_reference_get_data(). NULL is a no-op. */
void fbs_data_free(void *bytes);

/* The debug log. Levels of the lines passed to a log handler. */
typedef enum fbs_log_level {
    FBS_LOG_ERROR   = 1, /* an operation or task failed for good */
    FBS_LOG_WARNING = 2, /* a retry after a failure, an upload starting over */
    FBS_LOG_INFO    = 3, /* a resumable upload's position after asking the server */
    FBS_LOG_DEBUG   = 4  /* one line per HTTP attempt: method, URL, resumable command and
                            offset, then the status or transport error and body bytes sent */
} fbs_log_level;

/* Receives one log line: NUL-terminated UTF-8 without a trailing newline, borrowed for the
 * duration of the call. */
typedef void (*fbs_log_handler)(int level, const char *line, void *user_data);

/* Sets the process-wide log handler, for every storage; NULL disables logging (the default).
 * The handler runs on the transfer thread of the storage that logs, possibly on several such
 * threads at once, while that thread waits: keep it quick. It must not call any fbs_ function
 * (a call to this one from the handler deadlocks). When this function returns, the previous
 * handler is not running and will not be called again, so its user_data may be released.
 * Lines never contain header values, auth or App Check tokens, download tokens or upload
 * session IDs (URLs show such query values as REDACTED). Always returns FBS_OK. */
int fbs_library_set_log_handler(fbs_log_handler handler, void *user_data);

/* The CA bundle https trusts when a storage has no fbs_storage_set_ca_file(), found as Go's
 * crypto/x509 does: $SSL_CERT_FILE, else the first that exists of the Debian/Ubuntu/Arch,
 * Fedora/RHEL, openSUSE, CentOS, Alpine bundle paths (certificate directories likewise:
 * $SSL_CERT_DIR, colon-separated, else /etc/ssl/certs and /etc/pki/tls/certs). Looked up once
 * per process, at the first https request or this call. *out is NULL when no bundle exists
 * (libcurl's built-in default then applies); release it with fbs_string_free().
 * Errors: FBS_ERR_INVALID_ARGUMENT (out NULL). */
int fbs_library_system_ca_bundle(char **out);

/* ------------------------------------------------------------------------------------------
 * Handles (opaque) and the completion callbacks of _async calls.
 * ---------------------------------------------------------------------------------------- */
typedef struct fbs_storage fbs_storage;
typedef struct fbs_reference fbs_reference;
typedef struct fbs_metadata fbs_metadata;
typedef struct fbs_task fbs_task;
typedef struct fbs_snapshot fbs_snapshot;
typedef struct fbs_list_result fbs_list_result;

typedef void (*fbs_completion_callback)(int status, void *user_data);
typedef void (*fbs_metadata_callback)(int status, const fbs_metadata *metadata, void *user_data);
typedef void (*fbs_list_callback)(int status, const fbs_list_result *result, void *user_data);
typedef void (*fbs_string_callback)(int status, const char *value, void *user_data);
typedef void (*fbs_data_callback)(int status, const void *bytes, size_t length, void *user_data);

/* ------------------------------------------------------------------------------------------
 * Releasing user_data: the destroy callback of the _full calls (GLib's GDestroyNotify).
 * ---------------------------------------------------------------------------------------- */

/* Called exactly once with the user_data of a _full call when the library drops the callback
 * that user_data belongs to: that callback has returned for the last time and never runs again,
 * so destroy may release what user_data points to. The user_data passes to the library at the
 * call, also when the call fails (destroy then runs before the call returns). destroy runs on
 * whichever thread drops the callback (each _full call says when), with no library lock held;
 * it may call fbs_ functions, but must not wait for this storage's callback thread (e.g.
 * fbs_task_wait on an unfinished task). */
typedef void (*fbs_destroy_notify)(void *user_data);

/* Identifies a listener (Auth's, App Check's) for removal; never 0 for a registered one. */
typedef int64_t fbs_listener_handle;

#ifdef __cplusplus
}
#endif
#endif /* FBSTORAGE_COMMON_H */
