/* fbstorage/snapshot.h — the state of a task at one event
 * Part of fbstorage.h (include that one); the conventions stated there hold here. */
#ifndef FBSTORAGE_SNAPSHOT_H
#define FBSTORAGE_SNAPSHOT_H

#include "common.h"
#include "task.h"

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
}
#endif
#endif /* FBSTORAGE_SNAPSHOT_H */
