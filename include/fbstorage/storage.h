/* fbstorage/storage.h — one bucket, its settings, its threads
 * Part of fbstorage.h (include that one); the conventions stated there hold here. */
#ifndef FBSTORAGE_STORAGE_H
#define FBSTORAGE_STORAGE_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------
 * Storage — one bucket, its settings, its transfer and callback threads.
 * ---------------------------------------------------------------------------------------- */

/* Creates a storage for `bucket`, given as "my-app.appspot.com" or "gs://my-app.appspot.com"
 * (a path after the bucket is refused with FBS_ERR_PATH).
 * If FIREBASE_STORAGE_EMULATOR_HOST=host:port is set in the environment at this call, the
 * storage talks to that emulator over http (as the Admin SDKs do); use_emulator() overrides it.
 * Otherwise it talks to https://firebasestorage.googleapis.com.
 * Ownership: *out is the caller's; release it with fbs_storage_free().
 * Errors: FBS_ERR_INVALID_ARGUMENT (NULL), FBS_ERR_PATH (empty or malformed bucket). */
int fbs_storage_new(const char *bucket, fbs_storage **out);

/* Releases the storage. Tasks still running are cancelled: each one's FAILURE observers run
 * with FBS_ERR_CANCELLED (an upload's resumable session is kept on the server, unlike
 * fbs_task_cancel(): a session string taken before, fbs_task_upload_session(), resumes it in
 * this process or another with fbs_reference_put_file_resuming()), pending completion
 * callbacks run with FBS_ERR_CANCELLED, uploads' cancel commands still in flight (from an
 * fbs_task_cancel() just before) get up to 3 s to reach the server, and this call returns after
 * every callback has returned and both threads have stopped; no callback of this storage runs
 * afterwards. Called from this storage's own callback thread, it returns at once and the
 * teardown finishes after the running callback returns.
 * References, tasks and other handles derived from it stay valid handles: freeing them is
 * still required; operations on them fail with FBS_ERR_INVALID_ARGUMENT ("storage closed"). */
void fbs_storage_free(fbs_storage *storage);

/* How fbs_storage_close() ends the work still running. */
typedef enum fbs_close_mode {
    FBS_CLOSE_CANCEL        = 0, /* cancel it; uploads also end their sessions on the server (their
                                  * cancel commands get up to 3 s before the threads stop; free keeps them) */
    FBS_CLOSE_KEEP_SESSIONS = 1, /* stop it, keeping each upload's resumable session */
    FBS_CLOSE_FINISH        = 2  /* let running tasks finish within the timeout, then as KEEP_SESSIONS */
} fbs_close_mode;

/* Closes the storage without releasing the handle (fbs_storage_free() still must), ending its
 * work as mode says. With FBS_CLOSE_KEEP_SESSIONS each running task ends with FAILURE /
 * FBS_ERR_CANCELLED, but an upload leaves its session open on the server: its
 * fbs_task_upload_session() string is final, and its FAILURE observers have run, when this
 * call returns, so the caller can persist the string and resume with
 * fbs_reference_put_file_resuming() (in another process too). With FBS_CLOSE_FINISH the call
 * first waits up to timeout_seconds (>= 0) for the running tasks to end; those still running
 * then stop as with FBS_CLOSE_KEEP_SESSIONS (operations other than tasks are cancelled).
 * Afterwards, as after fbs_storage_free(): no callback of this storage runs, and operations on
 * its handles fail with FBS_ERR_INVALID_ARGUMENT ("closed"). A second close does nothing.
 * From the storage's own callback thread it does not wait for tasks.
 * Errors: FBS_ERR_INVALID_ARGUMENT (bad handle or mode; timeout negative or not finite). */
int fbs_storage_close(fbs_storage *storage, fbs_close_mode mode, double timeout_seconds);

/* The bucket name without "gs://". Borrowed from the storage. NULL on a bad handle. */
const char *fbs_storage_bucket(const fbs_storage *storage);

/* Sends every request to an emulator at http://host:port. host is a name or an IPv4/IPv6
 * address (IPv6 with or without brackets); port 1..65535.
 * Errors: FBS_ERR_INVALID_ARGUMENT (NULL or empty host; whitespace, control characters or any
 * of / ? # @ [ ] in it, beyond IPv6 brackets; port out of range). */
int fbs_storage_use_emulator(fbs_storage *storage, const char *host, int port);

/* Sends every request to the server at url, "https://host[:port]" or "http://host[:port]"
 * (a private endpoint, a TLS-terminating proxy, an emulator serving https; the port defaults
 * to the scheme's). https is verified as always (fbs_storage_set_ca_file()); tokens go only
 * over https or to loopback hosts. Replaces use_emulator() and FIREBASE_STORAGE_EMULATOR_HOST.
 * Errors: FBS_ERR_INVALID_ARGUMENT (NULL; another scheme; user info, a path, query or fragment;
 * a bad host or port). */
int fbs_storage_use_endpoint(fbs_storage *storage, const char *url);

/* Sets a fixed Firebase Auth ID token, sent as "Authorization: Firebase <token>". NULL clears
 * it. Tokens are sent only over https or to loopback hosts (localhost, 127.0.0.0/8, ::1).
 * Errors: FBS_ERR_INVALID_ARGUMENT (invalid UTF-8; a control character: C0 or DEL). */
int fbs_storage_set_auth_token(fbs_storage *storage, const char *token);

/* Supplies tokens on demand. Called before requests on the storage's transfer thread (never
 * with a lock held; keep it quick, and do not call blocking fbs_ operations from it — they
 * fail with FBS_ERR_INVALID_ARGUMENT there), with force_refresh = 1 after the server answered
 * 401 (the request is then retried once). Return the token, or NULL for none. The returned string must stay valid until the
 * provider is called again or the storage is freed; the library copies it. A provider
 * replaces a fixed token; fn = NULL removes the provider. A returned token that is not valid
 * UTF-8, or holds a control character (C0 or DEL), fails the request at once with
 * FBS_ERR_INVALID_ARGUMENT. */
typedef const char *(*fbs_token_provider)(int force_refresh, void *user_data);
int fbs_storage_set_auth_token_provider(fbs_storage *storage, fbs_token_provider fn, void *user_data);

/* As fbs_storage_set_auth_token_provider(), with a destroy callback for user_data (may be
 * NULL; see fbs_destroy_notify). It is called once the provider is dropped: replaced (by any
 * fbs_storage_set_auth_token* call), removed (fn NULL) or the storage freed, after the
 * provider's last call returned: before the replacing call or fbs_storage_free() returns, or,
 * when a request is asking the provider at that moment, on the transfer thread once it
 * returns. With fn NULL, destroy is called at once. */
int fbs_storage_set_auth_token_provider_full(fbs_storage *storage, fbs_token_provider fn, void *user_data,
                                             fbs_destroy_notify destroy);

/* Sets the App Check token, sent as "X-Firebase-AppCheck". NULL clears it.
 * Errors: FBS_ERR_INVALID_ARGUMENT (invalid UTF-8; a control character: C0 or DEL). */
int fbs_storage_set_app_check_token(fbs_storage *storage, const char *token);

/* Retry deadlines in seconds (> 0, finite): how long an upload (default 600), a download
 * (default 600) or any other operation (default 120) may keep retrying. Applies to
 * operations started afterwards. Errors: FBS_ERR_INVALID_ARGUMENT. */
int fbs_storage_set_max_upload_retry_time(fbs_storage *storage, double seconds);
int fbs_storage_get_max_upload_retry_time(const fbs_storage *storage, double *out_seconds);
int fbs_storage_set_max_download_retry_time(fbs_storage *storage, double seconds);
int fbs_storage_get_max_download_retry_time(const fbs_storage *storage, double *out_seconds);
int fbs_storage_set_max_operation_retry_time(fbs_storage *storage, double seconds);
int fbs_storage_get_max_operation_retry_time(const fbs_storage *storage, double *out_seconds);

/* Bytes per resumable-upload request (default 128 MiB). Uploads of at most 256 KiB go in one
 * multipart request; larger ones use the resumable protocol, one request per chunk, each
 * streamed from the source. Rounded down to the server's chunk granularity (never below one
 * unit). Range 256 KiB .. 1 GiB.
 * Errors: FBS_ERR_INVALID_ARGUMENT. */
int fbs_storage_set_upload_chunk_size(fbs_storage *storage, int64_t bytes);
int fbs_storage_get_upload_chunk_size(const fbs_storage *storage, int64_t *out_bytes);

/* TCP/TLS connect timeout in seconds (default 30; > 0). It also bounds the host name lookup:
 * a resolver that does not answer within it fails the attempt, which is retried. */
int fbs_storage_set_connect_timeout(fbs_storage *storage, double seconds);
int fbs_storage_get_connect_timeout(const fbs_storage *storage, double *out_seconds);

/* How long a loopback endpoint (127.0.0.0/8, ::1, localhost) may refuse connections before an
 * operation fails with FBS_ERR_RETRY_LIMIT_EXCEEDED, in seconds (default 2; >= 0, finite; 0:
 * at the first refusal). Nothing listening on this machine is usually an emulator not started
 * or a wrong port; the grace lets one that restarts come back (raise it to ride out a slower
 * restart). Refused connections to other endpoints are retried until the retry deadline.
 * Applies to operations started afterwards. Errors: FBS_ERR_INVALID_ARGUMENT. */
int fbs_storage_set_loopback_refused_grace(fbs_storage *storage, double seconds);
int fbs_storage_get_loopback_refused_grace(const fbs_storage *storage, double *out_seconds);

/* Also verify uploads against the server's md5Hash (off by default: CRC32C is always
 * verified, at a fraction of MD5's CPU cost). enabled: 0 or 1. */
int fbs_storage_set_verify_md5(fbs_storage *storage, int enabled);

/* Trust the CA certificates in this PEM file instead of the system store for https. TLS peer
 * and host verification are always on: a certificate that does not verify (unknown CA,
 * expired, another host name) fails the request at once with FBS_ERR_TLS, never retried.
 * NULL restores the system store. */
int fbs_storage_set_ca_file(fbs_storage *storage, const char *pem_path);

/* Sends requests through the proxy at url ("http://host:port"; https requests tunnel through
 * CONNECT; any scheme libcurl supports, e.g. "socks5h://host:port"), with optional basic
 * credentials (username, password; NULL: none; never logged) and no_proxy, a comma-separated
 * list of hosts reached directly ("*": all; NULL: the no_proxy environment variable).
 * url NULL goes back to the default, libcurl's environment variables (https_proxy,
 * http_proxy, all_proxy, no_proxy); url "" connects directly, ignoring them too. Applies to
 * requests started afterwards. A proxy that refuses a request fails it at once: HTTP 407
 * (credentials missing or wrong) or another status, named in the message (FBS_ERR_UNKNOWN).
 * Errors: FBS_ERR_INVALID_ARGUMENT (invalid UTF-8; credentials or no_proxy without a url). */
int fbs_storage_set_proxy(fbs_storage *storage, const char *url, const char *username,
                          const char *password, const char *no_proxy);

/* Caps the speed of each request's upload and download in bytes per second (0: none, the
 * default); a task's own cap (fbs_task_set_max_speed()) tightens them. Applies at once, to
 * running requests too (within about a second). Each request is capped on its own: two
 * transfers at once may move twice the cap together.
 * Errors: FBS_ERR_INVALID_ARGUMENT (negative). */
int fbs_storage_set_max_upload_speed(fbs_storage *storage, int64_t bytes_per_second);
int fbs_storage_get_max_upload_speed(const fbs_storage *storage, int64_t *out_bytes_per_second);
int fbs_storage_set_max_download_speed(fbs_storage *storage, int64_t bytes_per_second);
int fbs_storage_get_max_download_speed(const fbs_storage *storage, int64_t *out_bytes_per_second);

#ifdef __cplusplus
}
#endif
#endif /* FBSTORAGE_STORAGE_H */
