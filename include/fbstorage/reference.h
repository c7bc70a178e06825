/* fbstorage/reference.h — a bucket and an object path
 * Part of fbstorage.h (include that one); the conventions stated there hold here. */
#ifndef FBSTORAGE_REFERENCE_H
#define FBSTORAGE_REFERENCE_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------
 * References — a bucket and an object path. Paths are normalised as the Apple SDK does:
 * "//" collapses to "/", leading and trailing "/" are trimmed; "." and ".." are ordinary
 * characters. A full path longer than 1024 UTF-8 bytes, or containing CR or LF, is refused
 * with FBS_ERR_PATH.
 * ---------------------------------------------------------------------------------------- */

/* A reference to `path` in the storage's bucket; NULL or "" gives the root. */
int fbs_storage_reference(fbs_storage *storage, const char *path, fbs_reference **out);

/* A reference from "gs://bucket/path" or "http(s)://host[:port]/v0/b/bucket/o/<escaped path>".
 * A download URL's "token=" is kept: the reference's downloads (get_data, ranges, streams,
 * write_to_file, write_to_fd) send it instead of the storage's auth, so a token URL alone
 * downloads without signing in. The URL's host is not kept: requests go to the storage's
 * endpoint (production, or the emulator). References derived from it (child, parent, root)
 * have no token. Errors: FBS_ERR_PATH (unparsable, or a token with a bad escape or a control
 * character), FBS_ERR_BUCKET_MISMATCH (another bucket). */
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

#ifdef __cplusplus
}
#endif
#endif /* FBSTORAGE_REFERENCE_H */
