/*
 * fbstorage.h — Cloud Storage for Firebase client for C, C++ and any C FFI.
 *
 * A Swift core on libcurl, exported as a C ABI from libfbstorage.so. It does what the
 * Firebase Apple SDK's FirebaseStorage module does: references, uploads as observable tasks
 * with pause / resume / cancel, metadata, listing, downloads and download URLs.
 *
 * CONVENTIONS (they hold for every function below unless its block says otherwise)
 *
 *  Status codes.  A function that can fail returns int: FBS_OK (0) or a negative
 *      fbs_error_code. Results come back through out-parameters, which are left untouched
 *      on failure. On failure fbs_last_error_message() describes the failure on the calling
 *      thread, and fbs_last_error_http_status() / fbs_last_error_server_response() carry the
 *      server's answer when there was one. Messages and server responses never contain the
 *      auth or App Check tokens a request sent, even if the server echoes them (REDACTED).
 *
 *  Handles.  fbs_storage, fbs_reference, fbs_metadata, fbs_task, fbs_snapshot and
 *      fbs_list_result are opaque. A function that creates a handle gives the caller
 *      ownership; release it with the matching *_free. *_free(NULL) is a no-op. Passing a
 *      released handle, a handle of another type, or a pointer that was never a handle is
 *      detected: the call fails with FBS_ERR_INVALID_ARGUMENT (a *_free sets the last error
 *      and returns). Handles are never reused, so a stale pointer cannot alias a new handle.
 *
 *  Strings.  Strings passed in are UTF-8 and are copied during the call; invalid UTF-8 fails
 *      with FBS_ERR_PATH for paths and URLs, FBS_ERR_INVALID_ARGUMENT otherwise.
 *      `const char *` results are borrowed: they live as long as the handle they came from.
 *      `char **` results are owned by the caller and released with fbs_string_free().
 *
 *  Threads.  Every function is thread-safe. Each fbs_storage owns two threads: a transfer
 *      thread that drives libcurl, and a callback thread on which every observer and
 *      completion callback of that storage runs — one event at a time, in order per task,
 *      with no library lock held. A callback may call any fbs_ function (pause, resume,
 *      cancel, remove observers, start another upload, blocking operations). The only call
 *      refused there is one that would wait for the callback thread itself: fbs_task_wait()
 *      on a task that has not finished returns FBS_ERR_INVALID_ARGUMENT instead of hanging.
 *
 *  fork().  After fork() without exec, a child may use the library only from threads it
 *      creates after the fork: the Swift runtime's internal locks remember thread ids, and
 *      the forking thread keeps its parent's in the child (Python: use the "spawn" or
 *      "forkserver" start method of multiprocessing). Storages of the parent do not work in
 *      the child (their threads are not copied).
 *
 *  Retries.  Transport failures, HTTP 408, 429 and 5xx are retried with exponential backoff
 *      and jitter (Retry-After honoured) until the operation's deadline (see the retry-time
 *      setters); then the call fails with FBS_ERR_RETRY_LIMIT_EXCEEDED, naming the last cause.
 *      A loopback endpoint (localhost, 127.0.0.0/8, ::1) that refuses connections has nothing
 *      listening: such attempts fail with FBS_ERR_RETRY_LIMIT_EXCEEDED after 2 s of refusals,
 *      whatever the deadline, with a message naming host:port (and
 *      FIREBASE_STORAGE_EMULATOR_HOST when the address came from it). Input that can never
 *      succeed (a control character in a header-bound value, a file that changed) fails at
 *      once with FBS_ERR_INVALID_ARGUMENT and is never retried.
 */
#ifndef FBSTORAGE_H
#define FBSTORAGE_H

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
 * Codes — the Firebase StorageErrorCode raw values, and FBS_ERR_TIMEOUT, fbstorage's own.
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
    FBS_ERR_TIMEOUT                = -13060  /* fbs_task_wait: the timeout passed first; the task goes on */
} fbs_error_code;

/* ------------------------------------------------------------------------------------------
 * Library
 * ---------------------------------------------------------------------------------------- */

/* The library's version, e.g. "0.2.0" (FBS_VERSION_STRING of its header). Static string. */
const char *fbs_version(void);

/* The ABI version the library was built with (FBS_ABI_VERSION of its header). */
int fbs_abi_version(void);

/* A human-readable message for the last failure on the calling thread; "" if none.
 * Borrowed: valid until the next fbs_ call on this thread. Never NULL. */
const char *fbs_last_error_message(void);

/* The HTTP status of the response behind the last failure on this thread, or 0. */
int fbs_last_error_http_status(void);

/* The body of the server response behind the last failure on this thread, or NULL.
 * Borrowed: valid until the next fbs_ call on this thread. */
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

/* ------------------------------------------------------------------------------------------
 * Storage — one bucket, its settings, its transfer and callback threads.
 * ---------------------------------------------------------------------------------------- */
typedef struct fbs_storage fbs_storage;
typedef struct fbs_reference fbs_reference;
typedef struct fbs_metadata fbs_metadata;
typedef struct fbs_task fbs_task;
typedef struct fbs_snapshot fbs_snapshot;
typedef struct fbs_list_result fbs_list_result;

/* Creates a storage for `bucket`, given as "my-app.appspot.com" or "gs://my-app.appspot.com"
 * (a path after the bucket is refused with FBS_ERR_PATH).
 * If FIREBASE_STORAGE_EMULATOR_HOST=host:port is set in the environment at this call, the
 * storage talks to that emulator over http (as the Admin SDKs do); use_emulator() overrides it.
 * Otherwise it talks to https://firebasestorage.googleapis.com.
 * Ownership: *out is the caller's; release it with fbs_storage_free().
 * Errors: FBS_ERR_INVALID_ARGUMENT (NULL), FBS_ERR_PATH (empty or malformed bucket). */
int fbs_storage_new(const char *bucket, fbs_storage **out);

/* Releases the storage. Tasks still running are cancelled: each one's FAILURE observers run
 * with FBS_ERR_CANCELLED, pending completion callbacks run with FBS_ERR_CANCELLED, and this
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

/* ------------------------------------------------------------------------------------------
 * References — a bucket and an object path. Paths are normalised as the Apple SDK does:
 * "//" collapses to "/", leading and trailing "/" are trimmed; "." and ".." are ordinary
 * characters. A full path longer than 1024 UTF-8 bytes, or containing CR or LF, is refused
 * with FBS_ERR_PATH.
 * ---------------------------------------------------------------------------------------- */

/* A reference to `path` in the storage's bucket; NULL or "" gives the root. */
int fbs_storage_reference(fbs_storage *storage, const char *path, fbs_reference **out);

/* A reference from "gs://bucket/path" or "http(s)://host[:port]/v0/b/bucket/o/<escaped path>".
 * Errors: FBS_ERR_PATH (unparsable), FBS_ERR_BUCKET_MISMATCH (another bucket). */
int fbs_storage_reference_for_url(fbs_storage *storage, const char *url, fbs_reference **out);

/* The reference to `path` below r. "" returns a copy of r. */
int fbs_reference_child(const fbs_reference *r, const char *path, fbs_reference **out);

/* The parent of r; *out = NULL (and FBS_OK) when r is the root. */
int fbs_reference_parent(const fbs_reference *r, fbs_reference **out);

/* The root of r's bucket. */
int fbs_reference_root(const fbs_reference *r, fbs_reference **out);

/* Last path component ("" at the root), full path ("" at the root), bucket.
 * Borrowed from r. NULL on a bad handle. */
const char *fbs_reference_name(const fbs_reference *r);
const char *fbs_reference_full_path(const fbs_reference *r);
const char *fbs_reference_bucket(const fbs_reference *r);

void fbs_reference_free(fbs_reference *r);

/* ------------------------------------------------------------------------------------------
 * Metadata. A handle remembers which writable fields were set: a field never set is not
 * sent; a field set to NULL is sent as JSON null, which deletes it on update. Custom
 * metadata is merged key by key on update; a key set to NULL is deleted.
 * Metadata returned by the server has the read-only fields filled in.
 * ---------------------------------------------------------------------------------------- */

int fbs_metadata_new(fbs_metadata **out);
void fbs_metadata_free(fbs_metadata *m);

/* Writable fields. value is copied; NULL marks the field for deletion. */
int fbs_metadata_set_cache_control(fbs_metadata *m, const char *value);
int fbs_metadata_set_content_disposition(fbs_metadata *m, const char *value);
int fbs_metadata_set_content_encoding(fbs_metadata *m, const char *value);
int fbs_metadata_set_content_language(fbs_metadata *m, const char *value);
int fbs_metadata_set_content_type(fbs_metadata *m, const char *value);

/* Field values, borrowed from m until that field changes or m is freed; NULL when absent,
 * marked for deletion, or a bad handle. */
const char *fbs_metadata_cache_control(const fbs_metadata *m);
const char *fbs_metadata_content_disposition(const fbs_metadata *m);
const char *fbs_metadata_content_encoding(const fbs_metadata *m);
const char *fbs_metadata_content_language(const fbs_metadata *m);
const char *fbs_metadata_content_type(const fbs_metadata *m);
const char *fbs_metadata_bucket(const fbs_metadata *m);
const char *fbs_metadata_full_path(const fbs_metadata *m);
const char *fbs_metadata_name(const fbs_metadata *m);
const char *fbs_metadata_md5_hash(const fbs_metadata *m);   /* base64 */
const char *fbs_metadata_crc32c(const fbs_metadata *m);     /* as the server sent it */

/* Numbers; -1 when absent or a bad handle. */
int64_t fbs_metadata_size(const fbs_metadata *m);
int64_t fbs_metadata_generation(const fbs_metadata *m);
int64_t fbs_metadata_metageneration(const fbs_metadata *m);

/* Times in milliseconds since the Unix epoch (UTC); FBS_TIME_ABSENT when absent. */
#define FBS_TIME_ABSENT INT64_MIN
int64_t fbs_metadata_time_created_ms(const fbs_metadata *m);
int64_t fbs_metadata_updated_ms(const fbs_metadata *m);

/* Custom metadata. set: value NULL marks the key for deletion on update. remove: forgets the
 * key locally (nothing is sent for it). clear: sends "metadata": null, deleting every
 * custom key on update (keys set afterwards are sent after it). */
int fbs_metadata_set_custom(fbs_metadata *m, const char *key, const char *value);
int fbs_metadata_remove_custom(fbs_metadata *m, const char *key);
int fbs_metadata_clear_custom(fbs_metadata *m);
/* The value for key, borrowed until the custom metadata changes; NULL when absent or marked
 * for deletion. */
const char *fbs_metadata_custom(const fbs_metadata *m, const char *key);
/* Number of custom keys (including keys marked for deletion); 0 on a bad handle. */
size_t fbs_metadata_custom_count(const fbs_metadata *m);
/* The index-th key in byte order, borrowed; NULL when index >= count. */
const char *fbs_metadata_custom_key_at(const fbs_metadata *m, size_t index);

/* ------------------------------------------------------------------------------------------
 * Tasks — uploads and file downloads, observable as in the Apple SDK.
 * Events: RESUME when the task starts or resumes, PROGRESS as bytes move, PAUSE, then one
 * SUCCESS or FAILURE, after which every observer is removed and no event follows.
 * ---------------------------------------------------------------------------------------- */
typedef enum fbs_task_status {
    FBS_TASK_STATUS_UNKNOWN  = 0,
    FBS_TASK_STATUS_RESUME   = 1,
    FBS_TASK_STATUS_PROGRESS = 2,
    FBS_TASK_STATUS_PAUSE    = 3,
    FBS_TASK_STATUS_SUCCESS  = 4,
    FBS_TASK_STATUS_FAILURE  = 5
} fbs_task_status;

/* Observer callback. Runs on the storage's callback thread. The snapshot is valid only
 * during the call (copy it with fbs_task_snapshot() to keep one). */
typedef void (*fbs_task_callback)(const fbs_snapshot *snapshot, void *user_data);

/* Identifies one observer of one task; never 0. */
typedef int64_t fbs_observer_handle;

/* Uploads a copy of bytes[0..length) to r (bytes may be NULL when length is 0). metadata may
 * be NULL; its writable fields and custom metadata are sent with the upload. Without a
 * content type, "application/octet-stream" is sent. The task starts at once.
 * Errors: FBS_ERR_INVALID_ARGUMENT (also a control character, C0 or DEL, in the content type,
 * cache control, content disposition, encoding or language: they are served as headers),
 * FBS_ERR_PATH (r is the root). */
int fbs_reference_put_data(const fbs_reference *r, const void *bytes, size_t length,
                           const fbs_metadata *metadata, fbs_task **out);

/* Uploads the regular file at local_path, streaming it from disk in constant memory. The
 * content type, unless metadata sets one, is inferred from local_path's extension.
 * Errors at the call: FBS_ERR_INVALID_ARGUMENT (as fbs_reference_put_data), FBS_ERR_PATH
 * (root), FBS_ERR_UNKNOWN (file missing, unreadable, or not a regular file; the message names
 * it). The task fails with FBS_ERR_INVALID_ARGUMENT, before anything is finalized, when the
 * file grows or shrinks while it is uploaded. */
int fbs_reference_put_file(const fbs_reference *r, const char *local_path,
                           const fbs_metadata *metadata, fbs_task **out);

/* The upload's resumable session as a string to persist (it holds the session URL, the
 * object, the file's size, and the length and CRC32C of the file's prefix read for sending so
 * far; no token). *out is NULL (FBS_OK) while there is none: small uploads use one request,
 * and the session exists once the start request succeeded. The string changes as the upload
 * reads the file: persist the latest (e.g. from a PROGRESS observer, or after pausing) to
 * resume furthest. Release with fbs_string_free(). */
int fbs_task_upload_session(fbs_task *t, char **out);

/* Continues, possibly in another process, the upload described by session (from
 * fbs_task_upload_session()) from the offset the server reports. Before a byte is sent, the
 * call proves that local_path still holds what the session was uploading: its size, and the
 * CRC32C of the prefix the session vouches for (re-read at disk speed, on the calling thread).
 * If the server holds more bytes than the session vouches for (a string taken earlier), nothing
 * proves they are the file's, so the upload starts over in a new session (a WARNING log line
 * says so); so does an upload whose session the server no longer knows. A stored object is
 * never a mix of two files.
 * Errors: as fbs_reference_put_file(), FBS_ERR_INVALID_ARGUMENT (malformed session, one for
 * another object; a file whose size or vouched prefix changed: the message says which, and the
 * stored object is untouched). */
int fbs_reference_put_file_resuming(const fbs_reference *r, const char *local_path,
                                    const char *session, const fbs_metadata *metadata,
                                    fbs_task **out);

/* Downloads r to local_path as a task with the same events as uploads. Bytes go to a
 * temporary file beside local_path, renamed over it on success; on failure or cancel the
 * temporary file is removed and local_path is untouched. Pause/resume continue with Range.
 * Permissions: a new file gets 0666 & ~umask, as open(2) gives; a replaced file keeps its
 * permission bits. A read-only local_path (no write bit, or one the caller may not write) is
 * refused, never made writable or replaced.
 * Errors at the call: FBS_ERR_INVALID_ARGUMENT, FBS_ERR_PATH (root), FBS_ERR_UNKNOWN
 * (local_path read-only, not a regular file, or its directory not writable). */
int fbs_reference_write_to_file(const fbs_reference *r, const char *local_path, fbs_task **out);

/* Adds an observer for status (RESUME .. FAILURE). If the task is already in that status the
 * callback also fires once at once (on the callback thread). A RESUME observer fires at once
 * whenever the task is running or its end is still on the way to the callback thread (every
 * task starts by resuming), so observers added right after starting a task see its start;
 * that call comes before the task's events still waiting for the callback thread. The one
 * exception: a task that ended before anything observed it (a small upload can, between the
 * start call's return and the next line) has delivered its end, so only its final status's
 * observers fire (see below).
 * Once the task's SUCCESS or FAILURE was delivered, no observer of the task runs again (all are
 * removed, as in the Apple SDK), except that a new observer of exactly the status the task
 * ended in fires once at once, so observing SUCCESS after the end still learns the result.
 * Observers of any other status added after the end never fire.
 * out may be NULL when the handle is not needed.
 * Errors: FBS_ERR_INVALID_ARGUMENT (NULL task or callback, UNKNOWN or out-of-range status). */
int fbs_task_observe(fbs_task *t, fbs_task_status status, fbs_task_callback cb,
                     void *user_data, fbs_observer_handle *out);

/* Remove one observer, those of one status, or all. When a remove call returns, the removed
 * callbacks are never called again, so their user_data may be freed: if one is running on the
 * callback thread at that moment, the call waits for it to return. Called from a callback
 * (any storage's callback thread) it does not wait, since the running callback may be the
 * caller. Removing an unknown handle is not an error. */
int fbs_task_remove_observer(fbs_task *t, fbs_observer_handle h);
int fbs_task_remove_all_observers_for_status(fbs_task *t, fbs_task_status status);
int fbs_task_remove_all_observers(fbs_task *t);

/* Pause stops sending within ~100 ms (PAUSE event); resume asks the server how much it has
 * and continues from there (RESUME event); cancel ends the task with FAILURE /
 * FBS_ERR_CANCELLED. On a finished task they return FBS_OK and do nothing; pause on a paused
 * task and resume on a running one do nothing. */
int fbs_task_pause(fbs_task *t);
int fbs_task_resume(fbs_task *t);
int fbs_task_cancel(fbs_task *t);

/* Waits until the task has finished and its SUCCESS or FAILURE observers have returned, or
 * timeout_ms passes (negative: no limit; 0: only looks).
 * Returns the task's outcome: FBS_OK on success, the failure's code otherwise (the last error is
 * set to the failure's message).
 * Errors: FBS_ERR_TIMEOUT when timeout_ms passed first (the last error says after how long; the
 * task goes on, and a later wait can still return its outcome), FBS_ERR_INVALID_ARGUMENT (bad
 * handle; called on the storage's callback thread for an unfinished task, which would never
 * return). */
int fbs_task_wait(fbs_task *t, int64_t timeout_ms);

/* An owned copy of the task's latest snapshot; release with fbs_snapshot_free(). */
int fbs_task_snapshot(fbs_task *t, fbs_snapshot **out);

/* Releases the handle. The task itself goes on to its end and its observers still fire. */
void fbs_task_free(fbs_task *t);

/* ------------------------------------------------------------------------------------------
 * Snapshots — the state of a task at one event.
 * ---------------------------------------------------------------------------------------- */

/* FBS_TASK_STATUS_UNKNOWN on a bad handle. */
fbs_task_status fbs_snapshot_status(const fbs_snapshot *s);
/* Bytes uploaded or downloaded so far; -1 on a bad handle. */
int64_t fbs_snapshot_bytes_transferred(const fbs_snapshot *s);
/* Total bytes; -1 when not known yet (downloads before the response) or a bad handle. */
int64_t fbs_snapshot_total_bytes(const fbs_snapshot *s);
/* FBS_OK unless the status is FAILURE. */
int fbs_snapshot_error_code(const fbs_snapshot *s);
/* Borrowed from s; NULL when there is no error. */
const char *fbs_snapshot_error_message(const fbs_snapshot *s);
/* HTTP status and body of the response behind the error; 0 / NULL if none. */
int fbs_snapshot_error_http_status(const fbs_snapshot *s);
const char *fbs_snapshot_error_server_response(const fbs_snapshot *s);
/* The object's metadata (uploads: after SUCCESS; downloads: once known), borrowed from s;
 * NULL if none. */
const fbs_metadata *fbs_snapshot_metadata(const fbs_snapshot *s);
/* The task's reference, borrowed from s. */
const fbs_reference *fbs_snapshot_reference(const fbs_snapshot *s);
/* Releases a snapshot from fbs_task_snapshot(). Snapshots passed to callbacks are not the
 * caller's: freeing one fails with FBS_ERR_INVALID_ARGUMENT. */
void fbs_snapshot_free(fbs_snapshot *s);

/* ------------------------------------------------------------------------------------------
 * Operations. Each blocks the calling thread until done (retrying until the operation
 * deadline) and has an _async form that returns at once and reports through a completion
 * callback on the storage's callback thread. In a completion callback, arguments are
 * borrowed for the duration of the call and fbs_last_error_message() describes a failure.
 * An _async call returns FBS_OK when the operation was started; its callback then runs
 * exactly once, also when the storage is freed first (with FBS_ERR_CANCELLED).
 * Every operation maps HTTP 404 to FBS_ERR_OBJECT_NOT_FOUND, 401 to FBS_ERR_UNAUTHENTICATED,
 * 402 to FBS_ERR_QUOTA_EXCEEDED and 403 to FBS_ERR_UNAUTHORIZED.
 * ---------------------------------------------------------------------------------------- */
typedef void (*fbs_completion_callback)(int status, void *user_data);
typedef void (*fbs_metadata_callback)(int status, const fbs_metadata *metadata, void *user_data);
typedef void (*fbs_list_callback)(int status, const fbs_list_result *result, void *user_data);
typedef void (*fbs_string_callback)(int status, const char *value, void *user_data);
typedef void (*fbs_data_callback)(int status, const void *bytes, size_t length, void *user_data);

/* The object's metadata. */
int fbs_reference_get_metadata(const fbs_reference *r, fbs_metadata **out);
int fbs_reference_get_metadata_async(const fbs_reference *r, fbs_metadata_callback cb, void *user_data);

/* Sends only the fields set on changes (NULL-set fields as null) and returns the object's
 * updated metadata. Fields never set on changes are left as they are on the server.
 * Errors: FBS_ERR_INVALID_ARGUMENT also for a control character in a header-bound field (as
 * fbs_reference_put_data), at the call. */
int fbs_reference_update_metadata(const fbs_reference *r, const fbs_metadata *changes,
                                  fbs_metadata **out);
int fbs_reference_update_metadata_async(const fbs_reference *r, const fbs_metadata *changes,
                                        fbs_metadata_callback cb, void *user_data);

/* Deletes the object. */
int fbs_reference_delete(const fbs_reference *r);
int fbs_reference_delete_async(const fbs_reference *r, fbs_completion_callback cb, void *user_data);

/* "<scheme>://<host>/v0/b/<bucket>/o/<escaped path>?alt=media&token=<first download token>"
 * (the emulator's address when one is used). Errors: FBS_ERR_UNKNOWN when the object has no
 * download token. Release *out_url with fbs_string_free(). */
int fbs_reference_download_url(const fbs_reference *r, char **out_url);
int fbs_reference_download_url_async(const fbs_reference *r, fbs_string_callback cb, void *user_data);

/* Downloads the object into memory. Fails with FBS_ERR_DOWNLOAD_SIZE_EXCEEDED as soon as the
 * object is known to be larger than max_size (>= 0), before downloading it. Release *out_bytes
 * with fbs_data_free() (it is non-NULL even for an empty object). */
int fbs_reference_get_data(const fbs_reference *r, int64_t max_size, void **out_bytes,
                           size_t *out_length);
int fbs_reference_get_data_async(const fbs_reference *r, int64_t max_size, fbs_data_callback cb,
                                 void *user_data);

/* One page of the objects ("items") and folders ("prefixes") directly below r.
 * max_results 1..1000, or 0 to let the server choose; page_token NULL for the first page.
 * Errors: FBS_ERR_INVALID_ARGUMENT (max_results out of range; no request is sent). */
int fbs_reference_list(const fbs_reference *r, int64_t max_results, const char *page_token,
                       fbs_list_result **out);
int fbs_reference_list_async(const fbs_reference *r, int64_t max_results, const char *page_token,
                             fbs_list_callback cb, void *user_data);

/* Every page below r, concatenated; each prefix appears once; the page token is NULL. */
int fbs_reference_list_all(const fbs_reference *r, fbs_list_result **out);
int fbs_reference_list_all_async(const fbs_reference *r, fbs_list_callback cb, void *user_data);

/* List results. Items and prefixes are references borrowed from the result, in the server's
 * order; an index out of range gives NULL. */
size_t fbs_list_result_item_count(const fbs_list_result *lr);
const fbs_reference *fbs_list_result_item(const fbs_list_result *lr, size_t index);
size_t fbs_list_result_prefix_count(const fbs_list_result *lr);
const fbs_reference *fbs_list_result_prefix(const fbs_list_result *lr, size_t index);
/* The full paths of all items (or prefixes) in one string, in the same order, each path
 * followed by '\n' ("" when there are none): a listing of thousands of objects read in one
 * call, e.g. from another language's FFI. Paths never contain CR or LF. Borrowed: valid until
 * fbs_list_result_free(lr). NULL (with fbs_last_error_message()) only for an invalid lr. */
const char *fbs_list_result_item_paths(const fbs_list_result *lr);
const char *fbs_list_result_prefix_paths(const fbs_list_result *lr);
/* The token for the next page, borrowed; NULL on the last page. */
const char *fbs_list_result_page_token(const fbs_list_result *lr);
void fbs_list_result_free(fbs_list_result *lr);

#ifdef __cplusplus
}
#endif
#endif /* FBSTORAGE_H */
