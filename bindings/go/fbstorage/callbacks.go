package fbstorage

/*
#include "shim.h"
*/
import "C"

import (
	"context"
	"fmt"
	"os"
	"runtime/cgo"
	"unsafe"
)

// outcome is what one _async call's completion delivers.
type outcome struct {
	err        error
	metadata   *Metadata
	list       *ListResult
	value      string
	data       []byte
	user       *User
	actionCode ActionCodeInfo
	appCheck   AppCheckToken
}

// pending is what a cgo.Handle of an _async call holds: where to deliver, and the handle the
// call runs on, kept reachable until the completion (the caller may have returned already).
type pending struct {
	done  chan outcome
	owner any
}

// await starts an _async C call on owner's handle with a cgo.Handle as user_data and waits for
// its completion (which runs exactly once, also when the storage is closed first) or for ctx.
// When ctx ends first, await returns contextEnded(ctx) at once (an operation cannot be
// cancelled: it finishes in the background and its result is dropped).
func await(ctx context.Context, owner any, start func(handle C.uintptr_t) C.int) (outcome, error) {
	if ctx.Err() != nil {
		return outcome{}, contextEnded(ctx)
	}
	done := make(chan outcome, 1)
	handle := cgo.NewHandle(pending{done: done, owner: owner})
	if err := call(func() C.int { return start(C.uintptr_t(handle)) }); err != nil {
		handle.Delete()
		return outcome{}, err
	}
	select {
	case result := <-done:
		return result, result.err
	case <-ctx.Done():
		return outcome{}, contextEnded(ctx)
	}
}

// deliver completes an await from the library's callback thread; fill copies the borrowed
// arguments on success (owner is the handle the call ran on).
func deliver(handle C.uintptr_t, status C.int, fill func(result *outcome, owner any)) {
	h := cgo.Handle(handle)
	p := h.Value().(pending)
	h.Delete()
	var result outcome
	if status != 0 {
		result.err = lastError(status) // this callback's thread: its last error describes the failure
	} else if fill != nil {
		fill(&result, p.owner)
	}
	p.done <- result
}

//export fbsgoCompletion
func fbsgoCompletion(status C.int, handle C.uintptr_t) {
	deliver(handle, status, nil)
}

//export fbsgoMetadataDone
func fbsgoMetadataDone(status C.int, m *C.fbs_metadata, handle C.uintptr_t) {
	deliver(handle, status, func(o *outcome, _ any) { o.metadata = copyMetadata(m) })
}

//export fbsgoStringDone
func fbsgoStringDone(status C.int, value *C.char, handle C.uintptr_t) {
	deliver(handle, status, func(o *outcome, _ any) { o.value = goString(value) })
}

//export fbsgoDataDone
func fbsgoDataDone(status C.int, bytes unsafe.Pointer, length C.size_t, handle C.uintptr_t) {
	deliver(handle, status, func(o *outcome, _ any) { o.data = C.GoBytes(bytes, C.int(length)) })
}

//export fbsgoListDone
func fbsgoListDone(status C.int, lr *C.fbs_list_result, handle C.uintptr_t) {
	deliver(handle, status, func(o *outcome, owner any) { o.list = copyListResult(owner.(*Reference).storage, lr) })
}

//export fbsgoTaskEvent
func fbsgoTaskEvent(s *C.fbs_snapshot, key C.uintptr_t) {
	snapshot := copySnapshot(s)
	if entry := observers.get(uint64(key)); entry != nil {
		guarded(func() { entry.fn(snapshot) })
	}
	if snapshot.Status.final() {
		observers.remove(uint64(key)) // it never runs again
	}
}

// guarded runs a callback, stopping a panic at the library boundary (it cannot unwind into C).
func guarded(f func()) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(os.Stderr, "fbstorage: a callback panicked: %v\n", r)
		}
	}()
	f()
}
