/* fbstorage/list.h — listing and list results
 * Part of fbstorage.h (include that one); the conventions stated there hold here. */
#ifndef FBSTORAGE_LIST_H
#define FBSTORAGE_LIST_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------
 * Listing — pages of objects and folders below a reference, and list results.
 * ---------------------------------------------------------------------------------------- */

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
#endif /* FBSTORAGE_LIST_H */
