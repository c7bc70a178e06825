package fbstorage

/*
#include "shim.h"
*/
import "C"

import (
	"runtime"
	"sync"
	"time"
)

// Storage is one bucket, with its transfer and callback threads. Safe for concurrent use.
// Close it when done: Close cancels the tasks still running (they fail with ErrCancelled) and
// returns once no callback of it runs. References and tasks made from it stay safe to use;
// their operations then fail with ErrInvalidArgument ("storage closed").
type Storage struct {
	raw       *C.fbs_storage
	closeOnce sync.Once
}

// NewStorage is a storage for bucket ("my-app.appspot.com" or "gs://my-app.appspot.com").
// With FIREBASE_STORAGE_EMULATOR_HOST=host:port set, it talks to that emulator.
func NewStorage(bucket string) (*Storage, error) {
	b := cString(bucket)
	defer free(b)
	var raw *C.fbs_storage
	if err := call(func() C.int { return C.fbs_storage_new(b, &raw) }); err != nil {
		return nil, err
	}
	s := &Storage{raw: raw}
	runtime.SetFinalizer(s, (*Storage).Close)
	return s, nil
}

// Close releases the storage (see Storage). Further calls do nothing.
func (s *Storage) Close() {
	s.closeOnce.Do(func() { C.fbs_storage_free(s.raw) })
}

// Bucket is the bucket name without "gs://".
func (s *Storage) Bucket() string {
	defer runtime.KeepAlive(s)
	return goString(C.fbs_storage_bucket(s.raw))
}

func (s *Storage) setString(value string, set func(*C.fbs_storage, *C.char) C.int) error {
	v := cStringOrNil(value)
	defer free(v)
	defer runtime.KeepAlive(s)
	return call(func() C.int { return set(s.raw, v) })
}

// UseEmulator sends every request to an emulator at http://host:port.
func (s *Storage) UseEmulator(host string, port int) error {
	h := cString(host)
	defer free(h)
	defer runtime.KeepAlive(s)
	return call(func() C.int { return C.fbs_storage_use_emulator(s.raw, h, C.int(port)) })
}

// SetAuthToken sets a fixed Firebase Auth ID token; "" clears it. See also UseAuth.
func (s *Storage) SetAuthToken(token string) error {
	return s.setString(token, func(raw *C.fbs_storage, t *C.char) C.int { return C.fbs_storage_set_auth_token(raw, t) })
}

// SetAppCheckToken sets the App Check token; "" clears it.
func (s *Storage) SetAppCheckToken(token string) error {
	return s.setString(token, func(raw *C.fbs_storage, t *C.char) C.int { return C.fbs_storage_set_app_check_token(raw, t) })
}

// SetMaxUploadRetryTime: how long uploads started afterwards may keep retrying (default 10 min).
func (s *Storage) SetMaxUploadRetryTime(limit time.Duration) error {
	defer runtime.KeepAlive(s)
	return call(func() C.int { return C.fbs_storage_set_max_upload_retry_time(s.raw, C.double(limit.Seconds())) })
}

// SetMaxDownloadRetryTime: how long downloads started afterwards may keep retrying (default 10 min).
func (s *Storage) SetMaxDownloadRetryTime(limit time.Duration) error {
	defer runtime.KeepAlive(s)
	return call(func() C.int { return C.fbs_storage_set_max_download_retry_time(s.raw, C.double(limit.Seconds())) })
}

// SetMaxOperationRetryTime: how long other operations started afterwards may keep retrying (default 2 min).
func (s *Storage) SetMaxOperationRetryTime(limit time.Duration) error {
	defer runtime.KeepAlive(s)
	return call(func() C.int { return C.fbs_storage_set_max_operation_retry_time(s.raw, C.double(limit.Seconds())) })
}

// SetUploadChunkSize sets the bytes per resumable-upload request (256 KiB .. 1 GiB, default 128 MiB).
func (s *Storage) SetUploadChunkSize(bytes int64) error {
	defer runtime.KeepAlive(s)
	return call(func() C.int { return C.fbs_storage_set_upload_chunk_size(s.raw, C.int64_t(bytes)) })
}

// Reference is a reference to path in this bucket ("" for the root).
func (s *Storage) Reference(path string) (*Reference, error) {
	p := cString(path)
	defer free(p)
	defer runtime.KeepAlive(s)
	return newReference(s, func(out **C.fbs_reference) C.int { return C.fbs_storage_reference(s.raw, p, out) })
}

// ReferenceForURL is a reference from "gs://bucket/path" or an http(s) v0 URL of this bucket.
func (s *Storage) ReferenceForURL(url string) (*Reference, error) {
	u := cString(url)
	defer free(u)
	defer runtime.KeepAlive(s)
	return newReference(s, func(out **C.fbs_reference) C.int { return C.fbs_storage_reference_for_url(s.raw, u, out) })
}
