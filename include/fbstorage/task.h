/* fbstorage/task.h — uploads and file downloads as observable tasks
 * Part of fbstorage.h (include that one); the conventions stated there hold here. */
#ifndef FBSTORAGE_TASK_H
#define FBSTORAGE_TASK_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------
 * Tasks — uploads and file downloads, observable as in the Apple SDK.
 * Events: RESUME when the task starts or resumes, PROGRESS as bytes move, PAUSE, then one
 * SUCCESS or FAILURE, after which every observer is removed and no event follows.
 * Order: every PROGRESS of a task is delivered before its SUCCESS or FAILURE, which is its last
 * event, and the latest numbers come before a PAUSE or the end. PROGRESS follows the chunks
 * sent or received: at least every 256 KiB while data flows, at most every 50 ms below that,
 * coalesced while one is undelivered (newer numbers replace it rather than queue up behind a
 * slow observer). A download's SUCCESS waits until its PROGRESS observers returned, so an
 * fbs_task_pause() or fbs_task_cancel() called from one takes effect before the end on any link
 * (a pause after the last byte: PAUSE, and a resume then ends the task at once); an
 * fbs_task_cancel() that returned before a download committed its file wins over the success.
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
 * never a mix of two files. The task's first RESUME reports the bytes the server had confirmed
 * when the session string was taken; the next PROGRESS, the offset it reports now.
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

/* Caps this task's speed in bytes per second (0: none of its own, the default), tightening
 * the storage's cap for its direction. Changeable while the task runs: the request in flight
 * applies a change within about a second (libcurl re-reads the cap between reads and writes).
 * Errors: FBS_ERR_INVALID_ARGUMENT (bad handle, negative). */
int fbs_task_set_max_speed(fbs_task *t, int64_t bytes_per_second);
int fbs_task_get_max_speed(fbs_task *t, int64_t *out_bytes_per_second);

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
 * Observers with a destroy callback, and what ending a task does to its upload session.
 * ---------------------------------------------------------------------------------------- */

/* As fbs_task_observe(), with a destroy callback for user_data (may be NULL; see
 * fbs_destroy_notify). It is called once the observer is dropped:
 *  - removed by an fbs_task_remove_* call: before that call returns (after the observer's
 *    running call, if any, returned); called from a callback, that call does not wait, so an
 *    observer running then (e.g. the caller itself) is destroyed once its call returns;
 *  - after the task's SUCCESS or FAILURE was delivered (every observer is then removed): on
 *    the callback thread, or on the transfer thread when the end had no observer to call;
 *  - at once, before this call returns, when it can never fire (the task's end was delivered
 *    and status is not its final status) or when the call fails.
 * fbs_task_free() does not drop observers (the task goes on); fbs_storage_free() ends its tasks,
 * so every destroy callback of its tasks' observers has run when it returns. */
int fbs_task_observe_full(fbs_task *t, fbs_task_status status, fbs_task_callback cb, void *user_data,
                          fbs_destroy_notify destroy, fbs_observer_handle *out);

/* Upload sessions. fbs_task_cancel() ends the resumable session on the server too (a cancel
 * request, not waited for): a task of fbs_reference_put_file_resuming()
 * with a session string taken earlier then fails with FBS_ERR_UNKNOWN ("The server cancelled
 * the upload session"). fbs_storage_free() ends the task without touching the session, so a
 * session string taken earlier resumes it (e.g. after the application restarts). */

#ifdef __cplusplus
}
#endif
#endif /* FBSTORAGE_TASK_H */
