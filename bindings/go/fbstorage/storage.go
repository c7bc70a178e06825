package fbstorage

/*
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"runtime"
	"sync"
	"time"
)

// Storage is one bucket, with its transfer and callback threads. Safe for concurrent use.
// Close it when done: Close cancels the tasks still running (they fail with ErrCancelled) and
// returns once no callback of it runs. References and tasks made from it stay safe to use;
// their operations then fail with ErrInvalidArgument ("storage closed").
type Storage struct {
	raw   *C.fbs_storage
	mu    sync.Mutex // guards freed: no call closes a freed handle
	freed bool
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
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.freed {
		s.freed = true
		C.fbs_storage_free(s.raw)
	}
}

// CloseMode says how CloseWith ends the work still running.
type CloseMode int

const (
	// CloseCancel cancels it; uploads also end their sessions on the server (Close keeps them).
	CloseCancel CloseMode = 0
	// CloseKeepSessions stops it, keeping each upload's resumable session: the
	// Task.UploadSession string is final when CloseWith returns.
	CloseKeepSessions CloseMode = 1
	// CloseFinish lets running tasks finish within the timeout, then acts as CloseKeepSessions.
	CloseFinish CloseMode = 2
)

// String is the mode's name, e.g. "KeepSessions".
func (m CloseMode) String() string {
	switch m {
	case CloseCancel:
		return "Cancel"
	case CloseKeepSessions:
		return "KeepSessions"
	case CloseFinish:
		return "Finish"
	}
	return fmt.Sprintf("CloseMode(%d)", int(m))
}

// CloseWith ends the storage's running work as mode says (timeout: CloseFinish's wait), then
// releases it as Close does. Tasks stopped end with ErrCancelled; their Failure observers
// have run when it returns. A storage already closed is left as it is (nil). Not to be called
// from an observer of this storage's tasks (it would wait for itself).
func (s *Storage) CloseWith(mode CloseMode, timeout time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.freed {
		return nil
	}
	if err := call(func() C.int { return C.fbs_storage_close(s.raw, C.fbs_close_mode(mode), C.double(timeout.Seconds())) }); err != nil {
		return err
	}
	s.freed = true
	C.fbs_storage_free(s.raw)
	return nil
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

// SetMaxUploadSpeed caps each request's upload in bytes per second (0: none, the default),
// running ones too within about a second. Each request is capped on its own.
func (s *Storage) SetMaxUploadSpeed(bytesPerSecond int64) error {
	defer runtime.KeepAlive(s)
	return call(func() C.int { return C.fbs_storage_set_max_upload_speed(s.raw, C.int64_t(bytesPerSecond)) })
}

// MaxUploadSpeed is the upload cap in bytes per second (0: none).
func (s *Storage) MaxUploadSpeed() (int64, error) {
	defer runtime.KeepAlive(s)
	var speed C.int64_t
	err := call(func() C.int { return C.fbs_storage_get_max_upload_speed(s.raw, &speed) })
	return int64(speed), err
}

// SetMaxDownloadSpeed caps each request's download in bytes per second (0: none, the
// default), running ones too within about a second. Each request is capped on its own.
func (s *Storage) SetMaxDownloadSpeed(bytesPerSecond int64) error {
	defer runtime.KeepAlive(s)
	return call(func() C.int { return C.fbs_storage_set_max_download_speed(s.raw, C.int64_t(bytesPerSecond)) })
}

// MaxDownloadSpeed is the download cap in bytes per second (0: none).
func (s *Storage) MaxDownloadSpeed() (int64, error) {
	defer runtime.KeepAlive(s)
	var speed C.int64_t
	err := call(func() C.int { return C.fbs_storage_get_max_download_speed(s.raw, &speed) })
	return int64(speed), err
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
