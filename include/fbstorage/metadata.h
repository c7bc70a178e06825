/* fbstorage/metadata.h — object metadata handles
 * Part of fbstorage.h (include that one); the conventions stated there hold here. */
#ifndef FBSTORAGE_METADATA_H
#define FBSTORAGE_METADATA_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------
 * Metadata. A handle remembers which writable fields were set: a field never set is not
 * sent; a field set to NULL is sent as JSON null, which deletes it on update. Custom
 * metadata is merged key by key on update; a key set to NULL is deleted.
 * Metadata returned by the server has the read-only fields filled in.
 * ---------------------------------------------------------------------------------------- */

int fbs_metadata_new(fbs_metadata **out);
void fbs_metadata_free(fbs_metadata *m);

/* An owned, writable copy of m (also of one the library lends, e.g. a snapshot's or a
 * completion callback's): every field, read-only ones included, custom metadata, and which
 * writable fields are set or marked for deletion. Release it with fbs_metadata_free().
 * Errors: FBS_ERR_INVALID_ARGUMENT (NULL or bad handle, NULL out). */
int fbs_metadata_copy(const fbs_metadata *m, fbs_metadata **out);

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

/* Times in milliseconds since the Unix epoch (UTC); FBS_TIME_ABSENT (fbstorage/common.h) when absent. */
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

#ifdef __cplusplus
}
#endif
#endif /* FBSTORAGE_METADATA_H */
