package fbstorage

/*
#include "shim.h"
*/
import "C"

import (
	"context"
)

// ListResult is one page (or, from ListAll, every page) of the objects and folders below a
// reference, in the server's order. PageToken is "" on the last page.
type ListResult struct {
	Items     []*Reference
	Prefixes  []*Reference
	PageToken string
}

// copyListResult copies a borrowed result, its references of storage.
func copyListResult(storage *Storage, lr *C.fbs_list_result) *ListResult {
	result := &ListResult{PageToken: goString(C.fbs_list_result_page_token(lr))}
	for i := C.size_t(0); i < C.fbs_list_result_item_count(lr); i++ {
		result.Items = append(result.Items, copyReference(storage, C.fbs_list_result_item(lr, i)))
	}
	for i := C.size_t(0); i < C.fbs_list_result_prefix_count(lr); i++ {
		result.Prefixes = append(result.Prefixes, copyReference(storage, C.fbs_list_result_prefix(lr, i)))
	}
	return result
}

// List is one page of the objects and folders directly below r. maxResults 1..1000, or 0 to let
// the server choose; pageToken "" for the first page.
func (r *Reference) List(ctx context.Context, maxResults int, pageToken string) (*ListResult, error) {
	token := cStringOrNil(pageToken)
	defer free(token)
	result, err := await(ctx, r, func(h C.uintptr_t) C.int {
		return C.fbsgo_list_async(r.raw, C.int64_t(maxResults), token, h)
	})
	return result.list, err
}

// ListAll is every page below r in one result.
func (r *Reference) ListAll(ctx context.Context) (*ListResult, error) {
	result, err := await(ctx, r, func(h C.uintptr_t) C.int { return C.fbsgo_list_all_async(r.raw, h) })
	return result.list, err
}

// Pages iterates over the pages below r, one request per page, stopping after an error or when
// yield returns false. Its shape is Go 1.23's iter.Seq2, so `for page, err := range
// r.Pages(ctx, 100)` works there; with older Go, call it with the loop body as yield.
func (r *Reference) Pages(ctx context.Context, maxResults int) func(yield func(*ListResult, error) bool) {
	return func(yield func(*ListResult, error) bool) {
		token := ""
		for {
			page, err := r.List(ctx, maxResults, token)
			if !yield(page, err) || err != nil || page.PageToken == "" {
				return
			}
			token = page.PageToken
		}
	}
}
