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
 * this process or another with fbs_reference_put_file_resuming()), pending completion callbacks run with FBS_ERR_CANCELLED, and this
 * call returns after every callback has returned and both threads have stopped; no callback
 * of this storage runs afterwards. Called from this storage's own callback thread, it
 * returns at once and the teardown finishes after the running callback returns.
 * References, tasks and other handles derived from it stay valid handles: freeing them is
 * still required; operations on them fail with FBS_ERR_INVALID_ARGUMENT ("storage closed"). */
void fbs_storage_free(fbs_storage *storage);

/* The bucket name without "gs://". Borrowed from the storage. NULL on a bad handle. */
const char *fbs_storage_bucket(const fbs_storage *storage);

/* Sends every request to an emulator at http://host:port. host is a name or an IPv4/IPv6
 * address (IPv6 with or without brackets); port 1..65535.
 * Errors: FBS_ERR_INVALID_ARGUMENT (NULL or empty host; whitespace, control characters or any
 * of / ? # @ [ ] in it, beyond IPv6 brackets; port out of range). */
int fbs_storage_use_emulator(fbs_storage *storage, const char *host, int port);

/* Sets a fixed Firebase Auth ID token, sent as "Authorization: Firebase <token>". NULL clears
 * it. Tokens are sent only over https or to loopback hosts (localhost, 127.0.0.0/8, ::1).
 * Errors: FBS_ERR_INVALID_ARGUMENT (invalid UTF-8; a control character: C0 or DEL). */
int fbs_storage_set_auth_token(fbs_storage *storage, const char *token);

/* Supplies tokens on demand. Called before requests on the storage's transfer thread (never
 * with a lock held; keep it quick, and do not call blocking fbs_ operations from it — they
 * fail with FBS_ERR_INVALID_ARGUMENT there), with force_refresh = 1 after the server answered
 * 401 (the request is then retried once). Return the token, or NULL for none. The returned string must stay valid until the
 * provider is called again or the storage is freed; the library copies it. A provider
 * replaces a fixed token; fn = NULL removes the provider. A returned token with a control
 * character (C0 or DEL) fails the request at once with FBS_ERR_INVALID_ARGUMENT. */
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

/* TCP/TLS connect timeout in seconds (default 30; > 0). */
int fbs_storage_set_connect_timeout(fbs_storage *storage, double seconds);
int fbs_storage_get_connect_timeout(const fbs_storage *storage, double *out_seconds);

/* Also verify uploads against the server's md5Hash (off by default: CRC32C is always
 * verified, at a fraction of MD5's CPU cost). enabled: 0 or 1. */
int fbs_storage_set_verify_md5(fbs_storage *storage, int enabled);

/* Trust the CA certificates in this PEM file instead of the system store for https. TLS peer
 * and host verification are always on. NULL restores the system store. */
int fbs_storage_set_ca_file(fbs_storage *storage, const char *pem_path);

#ifdef __cplusplus
}
#endif
#endif /* FBSTORAGE_STORAGE_H */
