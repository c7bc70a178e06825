package fbstorage

/*
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"context"
	"fmt"
	"runtime"
	"unsafe"
)

// Reference is a bucket and an object path. Safe for concurrent use; released by the garbage
// collector. It keeps its Storage reachable, so the collector never closes a storage (and
// cancels its tasks) while references or tasks made from it are in use.
type Reference struct {
	raw     *C.fbs_reference
	storage *Storage
}

// newReference wraps the handle make creates; nil (and no error) when it creates none.
func newReference(storage *Storage, make func(out **C.fbs_reference) C.int) (*Reference, error) {
	var raw *C.fbs_reference
	if err := call(func() C.int { return make(&raw) }); err != nil || raw == nil {
		return nil, err
	}
	r := &Reference{raw: raw, storage: storage}
	runtime.SetFinalizer(r, func(r *Reference) { C.fbs_reference_free(r.raw) })
	return r, nil
}

// copyReference is an owned copy of a borrowed handle.
func copyReference(storage *Storage, raw *C.fbs_reference) *Reference {
	empty := cString("")
	defer free(empty)
	r, _ := newReference(storage, func(out **C.fbs_reference) C.int { return C.fbs_reference_child(raw, empty, out) })
	return r
}

// Child is the reference to path below r.
func (r *Reference) Child(path string) (*Reference, error) {
	p := cString(path)
	defer free(p)
	defer runtime.KeepAlive(r)
	return newReference(r.storage, func(out **C.fbs_reference) C.int { return C.fbs_reference_child(r.raw, p, out) })
}

// Parent is r's parent; nil at the root.
func (r *Reference) Parent() *Reference {
	defer runtime.KeepAlive(r)
	parent, _ := newReference(r.storage, func(out **C.fbs_reference) C.int { return C.fbs_reference_parent(r.raw, out) })
	return parent
}

// Root is the root of r's bucket.
func (r *Reference) Root() *Reference {
	defer runtime.KeepAlive(r)
	root, _ := newReference(r.storage, func(out **C.fbs_reference) C.int { return C.fbs_reference_root(r.raw, out) })
	return root
}

// Name is the last path component ("" at the root).
func (r *Reference) Name() string {
	defer runtime.KeepAlive(r)
	return goString(C.fbs_reference_name(r.raw))
}

// FullPath is the path ("" at the root).
func (r *Reference) FullPath() string {
	defer runtime.KeepAlive(r)
	return goString(C.fbs_reference_full_path(r.raw))
}

// Bucket is r's bucket.
func (r *Reference) Bucket() string {
	defer runtime.KeepAlive(r)
	return goString(C.fbs_reference_bucket(r.raw))
}

// String is "gs://bucket/path".
func (r *Reference) String() string {
	return fmt.Sprintf("gs://%s/%s", r.Bucket(), r.FullPath())
}

// withChanges runs f with the C handle of changes (NULL for nil), released afterwards.
func withChanges(changes *MetadataChanges, f func(*C.fbs_metadata) (*Task, error)) (*Task, error) {
	m, err := changes.toC()
	if err != nil {
		return nil, err
	}
	defer C.fbs_metadata_free(m)
	return f(m)
}

// PutData uploads a copy of data with the writable fields and custom metadata of metadata
// (may be nil). The task starts at once; cancelling ctx cancels it.
func (r *Reference) PutData(ctx context.Context, data []byte, metadata *MetadataChanges) (*Task, error) {
	defer runtime.KeepAlive(r)
	return withChanges(metadata, func(m *C.fbs_metadata) (*Task, error) {
		var bytes unsafe.Pointer
		if len(data) > 0 {
			bytes = unsafe.Pointer(&data[0]) // copied by the library during the call
		}
		return startTask(ctx, r.storage, func(out **C.fbs_task) C.int {
			return C.fbs_reference_put_data(r.raw, bytes, C.size_t(len(data)), m, out)
		})
	})
}

// PutFile uploads the file at path, streamed from disk; the content type is inferred from its
// extension unless metadata sets one.
func (r *Reference) PutFile(ctx context.Context, path string, metadata *MetadataChanges) (*Task, error) {
	p := cString(path)
	defer free(p)
	defer runtime.KeepAlive(r)
	return withChanges(metadata, func(m *C.fbs_metadata) (*Task, error) {
		return startTask(ctx, r.storage, func(out **C.fbs_task) C.int { return C.fbs_reference_put_file(r.raw, p, m, out) })
	})
}

// PutFileResuming continues, possibly in another process, the upload of path described by
// session (from Task.UploadSession), from the offset the server reports.
func (r *Reference) PutFileResuming(ctx context.Context, path, session string, metadata *MetadataChanges) (*Task, error) {
	p, s := cString(path), cString(session)
	defer free(p)
	defer free(s)
	defer runtime.KeepAlive(r)
	return withChanges(metadata, func(m *C.fbs_metadata) (*Task, error) {
		return startTask(ctx, r.storage, func(out **C.fbs_task) C.int { return C.fbs_reference_put_file_resuming(r.raw, p, s, m, out) })
	})
}

// WriteToFile downloads the object to path (replaced only on success).
func (r *Reference) WriteToFile(ctx context.Context, path string) (*Task, error) {
	p := cString(path)
	defer free(p)
	defer runtime.KeepAlive(r)
	return startTask(ctx, r.storage, func(out **C.fbs_task) C.int { return C.fbs_reference_write_to_file(r.raw, p, out) })
}

// Metadata is the object's metadata.
func (r *Reference) Metadata(ctx context.Context) (*Metadata, error) {
	result, err := await(ctx, r, func(h C.uintptr_t) C.int { return C.fbsgo_get_metadata_async(r.raw, h) })
	return result.metadata, err
}

// UpdateMetadata sends only the fields set on changes and returns the updated metadata.
func (r *Reference) UpdateMetadata(ctx context.Context, changes MetadataChanges) (*Metadata, error) {
	m, err := changes.toC()
	if err != nil {
		return nil, err
	}
	defer C.fbs_metadata_free(m)
	result, err := await(ctx, r, func(h C.uintptr_t) C.int { return C.fbsgo_update_metadata_async(r.raw, m, h) })
	return result.metadata, err
}

// Delete deletes the object.
func (r *Reference) Delete(ctx context.Context) error {
	_, err := await(ctx, r, func(h C.uintptr_t) C.int { return C.fbsgo_delete_async(r.raw, h) })
	return err
}

// DownloadURL is a URL with the object's first download token.
func (r *Reference) DownloadURL(ctx context.Context) (string, error) {
	result, err := await(ctx, r, func(h C.uintptr_t) C.int { return C.fbsgo_download_url_async(r.raw, h) })
	return result.value, err
}

// Data is the object's bytes; it fails with ErrDownloadSizeExceeded, before downloading, when
// the object is larger than maxSize.
func (r *Reference) Data(ctx context.Context, maxSize int64) ([]byte, error) {
	result, err := await(ctx, r, func(h C.uintptr_t) C.int { return C.fbsgo_get_data_async(r.raw, C.int64_t(maxSize), h) })
	return result.data, err
}
