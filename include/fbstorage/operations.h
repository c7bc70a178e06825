/* fbstorage/operations.h — metadata, delete, download URL, data: blocking and _async
 * Part of fbstorage.h (include that one); the conventions stated there hold here. */
#ifndef FBSTORAGE_OPERATIONS_H
#define FBSTORAGE_OPERATIONS_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

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

/* Memory a download fills, from the caller (say, a language binding's own byte string, so that
 * nothing copies the body again after the socket's bytes land in it):
 *   allocate(length, user_data) returns room for exactly `length` bytes; it may return NULL for
 *     0 bytes; NULL for more fails the download with FBS_ERR_INTERNAL ("Out of memory").
 *   release(memory, user_data) takes back memory from allocate that the library does not hand
 *     over: after a failed or cancelled download, or when a retry's body has another length.
 * allocate is asked once for the length the server announces (Content-Length); a body without
 * one is gathered first and copied into allocate's memory once, at the end. Both run one at a
 * time, on the storage's transfer thread or in the call itself, and must not call fbs_
 * functions of that storage. */
typedef struct fbs_allocator {
    void *(*allocate)(size_t length, void *user_data);
    void (*release)(void *memory, void *user_data);
    void *user_data;
} fbs_allocator;

/* As fbs_reference_get_data(), into memory from `allocator` (copied by the call; must not be
 * NULL, nor its functions). OUT: on FBS_OK, *out_bytes is the memory of the last allocate call
 * (the caller's: the library never touches it again) holding *out_length bytes; on an error,
 * *out_bytes is NULL and every allocate was matched by a release. The _async form passes that
 * memory to cb as `bytes` (the caller's, not borrowed). */
int fbs_reference_get_data_into(const fbs_reference *r, int64_t max_size, const fbs_allocator *allocator,
                                void **out_bytes, size_t *out_length);
int fbs_reference_get_data_into_async(const fbs_reference *r, int64_t max_size, const fbs_allocator *allocator,
                                      fbs_data_callback cb, void *user_data);

#ifdef __cplusplus
}
#endif
#endif /* FBSTORAGE_OPERATIONS_H */
