/* fbstorage/stream.h — byte ranges, streaming downloads into a sink, uploads from a stream of
 * unknown length, and file descriptors (fbstorage's own: the Firebase SDKs have no C forms)
 * Part of fbstorage.h (include that one); the conventions stated there hold here. */
#ifndef FBSTORAGE_STREAM_H
#define FBSTORAGE_STREAM_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------
 * Byte ranges. A range is (offset, length):
 *   offset >= 0, length >= 0   length bytes from offset;
 *   offset >= 0, length <  0   from offset to the end of the object;
 *   offset <  0, length <  0   the last -offset bytes.
 * (offset < 0 with length >= 0 is FBS_ERR_INVALID_ARGUMENT.) A range that reaches past the end
 * of the object fails with FBS_ERR_RANGE_NOT_SATISFIABLE, never with fewer bytes: for an
 * object of n bytes, (n, 0) and (n, -1) are the empty ranges at its end (no bytes, FBS_OK),
 * while (n, 1), (n - 1, 2) and (-(n + 1), -1) are errors. The object's size is learned from
 * the answer to the read itself (no extra metadata request).
 * A range task's snapshot counts the range's bytes: total_bytes is the range's length once the
 * first answer arrived.
 * ---------------------------------------------------------------------------------------- */

/* The bytes of the range into memory, as fbs_reference_get_data() (release *out_bytes with
 * fbs_data_free(); non-NULL even when empty). Fails with FBS_ERR_DOWNLOAD_SIZE_EXCEEDED, before
 * reading its bytes, when the range is larger than max_size (>= 0). A dropped connection
 * continues with Range from the bytes already received.
 * Errors: FBS_ERR_INVALID_ARGUMENT (bad range, negative max_size), FBS_ERR_PATH (root),
 * FBS_ERR_RANGE_NOT_SATISFIABLE, FBS_ERR_OBJECT_CHANGED (the object was replaced between two
 * requests of the read), and those of every operation. */
int fbs_reference_get_range(const fbs_reference *r, int64_t offset, int64_t length,
                            int64_t max_size, void **out_bytes, size_t *out_length);
int fbs_reference_get_range_async(const fbs_reference *r, int64_t offset, int64_t length,
                                  int64_t max_size, fbs_data_callback cb, void *user_data);

/* Reads the range into buffer[0..capacity) as a task (observable, pausable, cancellable as any
 * task; fbs_task_wait() for the outcome). buffer must stay valid until the task ended; the
 * final snapshot's bytes_transferred is the count written. A range larger than capacity fails
 * with FBS_ERR_DOWNLOAD_SIZE_EXCEEDED before a byte is written.
 * Errors at the call: FBS_ERR_INVALID_ARGUMENT (bad range, NULL buffer with capacity > 0),
 * FBS_ERR_PATH (root). The task fails as fbs_reference_get_range(). */
int fbs_reference_read_range(const fbs_reference *r, int64_t offset, int64_t length,
                             void *buffer, size_t capacity, fbs_task **out);

/* ------------------------------------------------------------------------------------------
 * Streaming downloads.
 * ---------------------------------------------------------------------------------------- */

/* Receives the next bytes of a download, in order, each byte once; bytes are borrowed for the
 * call. Runs on the storage's transfer thread, which moves no other transfer of the storage
 * meanwhile: return promptly (the download waits for the sink, so a slow sink slows the
 * download rather than filling memory) and call no blocking fbs_ function. fbs_task_pause(),
 * fbs_task_resume() and fbs_task_cancel() may be called from it.
 * Return 0 to go on; any other value refuses the bytes and ends the task with FAILURE: its
 * code is the returned value when that is an FBS_ERR_* code, else FBS_ERR_UNKNOWN, and its
 * message says that the sink refused, at which offset, and the value returned. */
typedef int (*fbs_sink_callback)(const void *bytes, size_t length, void *user_data);

/* Streams the object, or the range (offset, length) of it (0, -1: the whole object), to sink
 * as a task: RESUME, PROGRESS (bytes handed to the sink; total_bytes once known), PAUSE, then
 * SUCCESS or FAILURE. After a dropped connection, a pause or a resume it continues with Range
 * from the first byte not delivered yet; bytes a server sends again are skipped, so the sink
 * never sees a byte twice or a gap. If the object is replaced meanwhile (another generation),
 * the task fails with FBS_ERR_OBJECT_CHANGED before a byte of the new version reaches the sink.
 * When the whole object was read its CRC32C is checked (FBS_ERR_NON_MATCHING_CHECKSUM, after
 * the sink saw every byte: a sink that must not act on bad bytes waits for SUCCESS).
 * user_data is passed to sink, which is not called after the task's FAILURE or SUCCESS.
 * Errors at the call: FBS_ERR_INVALID_ARGUMENT (bad range, NULL sink), FBS_ERR_PATH (root). */
int fbs_reference_stream(const fbs_reference *r, int64_t offset, int64_t length,
                         fbs_sink_callback sink, void *user_data, fbs_task **out);

/* Downloads the object to the open file descriptor fd (a pipe, a socket, stdout, a file at its
 * current offset) as fbs_reference_stream(); fd stays open and the caller's. A non-blocking fd
 * is waited for. Unlike fbs_reference_write_to_file(), a failure leaves the bytes written so
 * far (check the task's outcome before trusting them).
 * Errors at the call: FBS_ERR_INVALID_ARGUMENT (fd not open), FBS_ERR_PATH (root). A failing
 * write (EPIPE, ENOSPC) fails the task with FBS_ERR_UNKNOWN naming the error. */
int fbs_reference_write_to_fd(const fbs_reference *r, int fd, fbs_task **out);

/* ------------------------------------------------------------------------------------------
 * Uploads from a stream of unknown length.
 * ---------------------------------------------------------------------------------------- */

/* Fills buffer[0..capacity) with the next bytes of the stream: returns the count read (1 ..
 * capacity), 0 at the end of the stream, FBS_SOURCE_NOT_READY when no byte is ready yet, or
 * another negative value to fail the upload (its code when that is an FBS_ERR_* code, else
 * FBS_ERR_UNKNOWN). After FBS_SOURCE_NOT_READY the upload waits, other transfers going on,
 * until fbs_task_resume() is called on its task (call it once bytes are ready; a call that
 * comes first is not lost only if it comes after the callback returned), then calls read
 * again. Runs on the storage's transfer thread, which moves no other transfer meanwhile: it
 * may block for as long as a read from a pipe takes, but a producer that may be slow should
 * answer FBS_SOURCE_NOT_READY instead. It must call no blocking fbs_ function. */
#define FBS_SOURCE_NOT_READY (-1)
typedef int64_t (*fbs_source_callback)(void *buffer, size_t capacity, void *user_data);

/* Uploads what read returns until it reports the end, in constant memory. A stream that ends
 * within 256 KiB goes in one request; a longer one in a resumable session opened without a
 * size, one chunk (a multiple of 256 KiB: the storage's upload chunk size, at most 8 MiB) read
 * ahead and kept until the server confirmed it, the last chunk finalizing once read reports
 * the end. The CRC32C of the bytes read is checked against the stored object's. Pause, resume
 * (from what the server has) and cancel work as for files. If read fails, or the upload fails
 * or is cancelled, the session is cancelled: no object is stored. There is no session string
 * to persist (fbs_task_upload_session() gives NULL): a stream cannot be read again.
 * metadata may be NULL (content type "application/octet-stream").
 * Errors at the call: FBS_ERR_INVALID_ARGUMENT (NULL read, metadata as fbs_reference_put_data),
 * FBS_ERR_PATH (root). */
int fbs_reference_put_stream(const fbs_reference *r, fbs_source_callback read, void *user_data,
                             const fbs_metadata *metadata, fbs_task **out);

/* Uploads what the open file descriptor fd (a pipe, a socket, stdin, a file from its current
 * offset) holds up to its end, as fbs_reference_put_stream(); fd stays open and the caller's.
 * A thread of the task reads fd up to half a chunk (4 MiB) ahead of the bytes being sent, so
 * reading overlaps sending; it stops when the task ends (bytes it read past that are gone from
 * fd). A read error fails the task with FBS_ERR_UNKNOWN naming it.
 * Errors at the call: FBS_ERR_INVALID_ARGUMENT (fd not open), FBS_ERR_INTERNAL (no thread or
 * pipe could be made for the reader), FBS_ERR_PATH (root). */
int fbs_reference_put_fd(const fbs_reference *r, int fd, const fbs_metadata *metadata,
                         fbs_task **out);

#ifdef __cplusplus
}
#endif
#endif /* FBSTORAGE_STREAM_H */
