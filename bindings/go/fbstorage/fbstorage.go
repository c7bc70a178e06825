// Package fbstorage is Cloud Storage for Firebase as a signed-in user, from Go: a thin layer
// over libfbstorage.so (include/fbstorage.h) with no dependency beyond the standard library.
//
// A Storage is a bucket; a Reference an object path with its operations. Every call that
// talks to the server takes a context.Context: its end cancels a task, and makes an
// operation's call return at once; either way the error matches both the context's error and
// ErrCancelled with errors.Is. Uploads and file downloads are Tasks with
// observers, pause/resume/cancel and Wait. Failures are *Error values wrapping a Code:
// errors.Is(err, fbstorage.ErrObjectNotFound).
//
// Build: the package finds libfbstorage through pkg-config (fbstorage.pc, which `make` writes
// to build/lib/pkgconfig: set PKG_CONFIG_PATH to it unless the library is installed). Without
// pkg-config, build with -tags fbstorage_no_pkgconfig and CGO_LDFLAGS="-L/path/to/lib
// -Wl,-rpath,/path/to/lib". See README.md.
// Callbacks (observers, listeners) run on the library's callback thread, one at a time; the
// library never holds a Go pointer: it gets a registry key or a cgo.Handle.
package fbstorage

/*
#cgo CFLAGS: -I${SRCDIR}/../../../include
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"runtime"
	"unsafe"
)

// Version is the version of the loaded library, e.g. "0.2.0".
func Version() string {
	return C.GoString(C.fbs_version())
}

// call runs a C call that reports failure through the thread's last error, and reads that
// error on the same OS thread.
func call(f func() C.int) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if code := f(); code != 0 {
		return lastError(code)
	}
	return nil
}

// cString is a C copy of s, to release with free.
func cString(s string) *C.char {
	return C.CString(s)
}

// cStringOrNil is NULL for "" (the C API's "absent").
func cStringOrNil(s string) *C.char {
	if s == "" {
		return nil
	}
	return C.CString(s)
}

func free(p *C.char) {
	C.free(unsafe.Pointer(p))
}

// goString is "" for NULL.
func goString(p *C.char) string {
	if p == nil {
		return ""
	}
	return C.GoString(p)
}
