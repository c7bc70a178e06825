package fbstorage

/*
#include "shim.h"
*/
import "C"

import (
	"context"
	"fmt"
	"runtime"
	"sync"
)

// TaskStatus names the events of a task.
type TaskStatus int

// The events, in the order they can happen; Success or Failure is the last.
const (
	StatusResume   TaskStatus = 1 // the task started or resumed
	StatusProgress TaskStatus = 2 // bytes moved
	StatusPause    TaskStatus = 3
	StatusSuccess  TaskStatus = 4
	StatusFailure  TaskStatus = 5 // failed or cancelled
)

// String is the status's name, e.g. "Progress".
func (s TaskStatus) String() string {
	switch s {
	case StatusResume:
		return "Resume"
	case StatusProgress:
		return "Progress"
	case StatusPause:
		return "Pause"
	case StatusSuccess:
		return "Success"
	case StatusFailure:
		return "Failure"
	}
	return fmt.Sprintf("TaskStatus(%d)", int(s))
}

func (s TaskStatus) final() bool {
	return s == StatusSuccess || s == StatusFailure
}

// Snapshot is the state of a task at one event.
type Snapshot struct {
	Status           TaskStatus
	BytesTransferred int64
	TotalBytes       int64     // -1 until known (downloads before the response)
	Err              error     // the failure, when Status is StatusFailure
	Metadata         *Metadata // uploads: after success; downloads: once known
}

func copySnapshot(s *C.fbs_snapshot) Snapshot {
	snapshot := Snapshot{
		Status:           TaskStatus(C.fbs_snapshot_status(s)),
		BytesTransferred: int64(C.fbs_snapshot_bytes_transferred(s)),
		TotalBytes:       int64(C.fbs_snapshot_total_bytes(s)),
	}
	if code := C.fbs_snapshot_error_code(s); code != 0 {
		snapshot.Err = &Error{
			Code:           Code(code),
			Message:        goString(C.fbs_snapshot_error_message(s)),
			HTTPStatus:     int(C.fbs_snapshot_error_http_status(s)),
			ServerResponse: goString(C.fbs_snapshot_error_server_response(s)),
		}
	}
	if m := C.fbs_snapshot_metadata(s); m != nil {
		snapshot.Metadata = copyMetadata(m)
	}
	return snapshot
}

type observer struct {
	fn func(Snapshot)
}

var observers registry[*observer]

// ObserverID identifies one observer of one task, for RemoveObserver.
type ObserverID uint64

type registration struct {
	key      uint64
	handle   C.fbs_observer_handle
	status   TaskStatus
	internal bool // the binding's own Success/Failure observers, which end Wait
}

// Task is an upload or a file download. It starts at once and runs to its end whether or not
// the *Task is kept; cancelling the context it was started with cancels it. Safe for
// concurrent use.
type Task struct {
	raw     *C.fbs_task
	done    chan struct{}
	storage *Storage // kept reachable while the task runs (see Reference)

	mu         sync.Mutex
	ended      bool
	last       Snapshot
	cause      error // why the binding ended the task (a context's end, a failed io.Reader)
	registered []registration
}

func startTask(ctx context.Context, storage *Storage, start func(out **C.fbs_task) C.int) (*Task, error) {
	if ctx.Err() != nil {
		return nil, contextEnded(ctx)
	}
	var raw *C.fbs_task
	if err := call(func() C.int { return start(&raw) }); err != nil {
		return nil, err
	}
	t := &Task{raw: raw, done: make(chan struct{}), storage: storage}
	// The internal observers keep t reachable until the task ends.
	runtime.SetFinalizer(t, func(t *Task) { C.fbs_task_free(t.raw) })
	for _, status := range []TaskStatus{StatusSuccess, StatusFailure} {
		if _, err := t.observe(status, t.finish, true); err != nil {
			return nil, err
		}
	}
	if ctx.Done() != nil {
		go func() {
			select {
			case <-ctx.Done():
				t.cancelFor(ctx.Err())
			case <-t.done:
			}
		}()
	}
	return t, nil
}

// finish records the end, then drops the observers that can no longer run (the library
// removed them all; those of the final status are being called and remove themselves).
func (t *Task) finish(last Snapshot) {
	t.mu.Lock()
	if t.ended {
		t.mu.Unlock()
		return
	}
	t.ended, t.last = true, last
	if last.Err != nil && t.cause != nil {
		t.last.Err = &causedError{cause: t.cause, err: last.Err}
	}
	var gone []uint64
	kept := t.registered[:0]
	for _, r := range t.registered {
		if r.status == last.Status {
			kept = append(kept, r)
		} else {
			gone = append(gone, r.key)
		}
	}
	t.registered = kept
	t.mu.Unlock()
	for _, key := range gone {
		observers.remove(key)
	}
	close(t.done)
}

func (t *Task) observe(status TaskStatus, fn func(Snapshot), internal bool) (ObserverID, error) {
	t.mu.Lock()
	if t.ended && (t.last.Status != status) {
		t.mu.Unlock()
		return 0, nil // would never run (as in the Apple SDK)
	}
	key := observers.insert(&observer{fn: fn})
	t.registered = append(t.registered, registration{key: key, status: status, internal: internal})
	t.mu.Unlock()
	var handle C.fbs_observer_handle
	err := call(func() C.int { return C.fbsgo_task_observe(t.raw, C.int(status), C.uintptr_t(key), &handle) })
	t.mu.Lock()
	defer t.mu.Unlock()
	for i := range t.registered {
		if t.registered[i].key == key {
			if err != nil {
				t.registered = append(t.registered[:i], t.registered[i+1:]...)
				observers.remove(key)
			} else {
				t.registered[i].handle = handle
			}
			break
		}
	}
	return ObserverID(key), err
}

// Observe calls fn on the library's callback thread for each event of status. A StatusResume
// observer added right after the start sees it; a Success or Failure observer added after the
// end sees it once. fn may call any method but a Wait for this unfinished task.
func (t *Task) Observe(status TaskStatus, fn func(Snapshot)) (ObserverID, error) {
	return t.observe(status, fn, false)
}

func (t *Task) removeWhere(match func(registration) bool) error {
	t.mu.Lock()
	var removed []registration
	kept := t.registered[:0]
	for _, r := range t.registered {
		if !r.internal && match(r) {
			removed = append(removed, r)
		} else {
			kept = append(kept, r)
		}
	}
	t.registered = kept
	t.mu.Unlock()
	var first error
	for _, r := range removed {
		// Off the callback thread this waits for a running call of the observer to return.
		err := call(func() C.int { return C.fbs_task_remove_observer(t.raw, r.handle) })
		observers.remove(r.key)
		if first == nil {
			first = err
		}
	}
	return first
}

// RemoveObserver removes one observer: it is not called again.
func (t *Task) RemoveObserver(id ObserverID) error {
	return t.removeWhere(func(r registration) bool { return r.key == uint64(id) })
}

// RemoveAllObserversForStatus removes the observers of one status.
func (t *Task) RemoveAllObserversForStatus(status TaskStatus) error {
	return t.removeWhere(func(r registration) bool { return r.status == status })
}

// RemoveAllObservers removes every observer added with Observe.
func (t *Task) RemoveAllObservers() error {
	return t.removeWhere(func(registration) bool { return true })
}

// Pause stops sending within ~100 ms (a Pause event follows).
func (t *Task) Pause() error {
	defer runtime.KeepAlive(t)
	return call(func() C.int { return C.fbs_task_pause(t.raw) })
}

// Resume continues from what the server has (a Resume event follows).
func (t *Task) Resume() error {
	defer runtime.KeepAlive(t)
	return call(func() C.int { return C.fbs_task_resume(t.raw) })
}

// Cancel ends the task with StatusFailure and ErrCancelled.
func (t *Task) Cancel() error {
	defer runtime.KeepAlive(t)
	return call(func() C.int { return C.fbs_task_cancel(t.raw) })
}

// cancelFor cancels the task for cause, which its failure then wraps (unless it ended already).
func (t *Task) cancelFor(cause error) {
	t.mu.Lock()
	if !t.ended && t.cause == nil {
		t.cause = cause
	}
	t.mu.Unlock()
	_ = t.Cancel()
}

// SetMaxSpeed caps this task's transfer in bytes per second (0: only the storage's caps),
// tightening the storage's cap; it applies within about a second.
func (t *Task) SetMaxSpeed(bytesPerSecond int64) error {
	defer runtime.KeepAlive(t)
	return call(func() C.int { return C.fbs_task_set_max_speed(t.raw, C.int64_t(bytesPerSecond)) })
}

// MaxSpeed is this task's own cap in bytes per second (0: none).
func (t *Task) MaxSpeed() (int64, error) {
	defer runtime.KeepAlive(t)
	var speed C.int64_t
	err := call(func() C.int { return C.fbs_task_get_max_speed(t.raw, &speed) })
	return int64(speed), err
}

// Snapshot is the task's latest state.
func (t *Task) Snapshot() (Snapshot, error) {
	defer runtime.KeepAlive(t)
	var s *C.fbs_snapshot
	if err := call(func() C.int { return C.fbs_task_snapshot(t.raw, &s) }); err != nil {
		return Snapshot{}, err
	}
	defer C.fbs_snapshot_free(s)
	return copySnapshot(s), nil
}

// UploadSession is the upload's resumable session, to persist and pass to
// Reference.PutFileResuming, possibly in another process; "" while there is none (small
// uploads never have one). It changes as the upload goes on: persist the latest.
func (t *Task) UploadSession() (string, error) {
	defer runtime.KeepAlive(t)
	var session *C.char
	if err := call(func() C.int { return C.fbs_task_upload_session(t.raw, &session) }); err != nil {
		return "", err
	}
	defer C.fbs_string_free(session)
	return goString(session), nil
}

// Done is closed when the task has ended.
func (t *Task) Done() <-chan struct{} {
	return t.done
}

// Wait waits for the end (and for the end's observers to return) and returns the final
// snapshot, or the task's failure. When ctx ends first, Wait cancels the task and still
// returns only once it has ended: with its failure, which then wraps ctx.Err() as well as
// ErrCancelled (or with its success, when the task finished before the cancel took effect).
func (t *Task) Wait(ctx context.Context) (Snapshot, error) {
	select {
	case <-t.done:
	case <-ctx.Done():
		t.cancelFor(ctx.Err())
		<-t.done
	}
	// As in C, return once the other observers of the end returned too (on the callback
	// thread itself the library refuses at once instead of waiting).
	C.fbs_task_wait(t.raw, -1)
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.last, t.last.Err
}
