package fbstorage

/*
#include "shim.h"
*/
import "C"

import (
	"context"
	"io"
	"runtime"
	"sync"
	"unsafe"
)

// Streams: ObjectReader over fbs_reference_stream, ObjectWriter over fbs_reference_put_stream.
// The library calls the sink and the source on the storage's transfer thread, which moves no
// other transfer meanwhile, so neither ever waits for the Go side: a full reader buffer pauses
// the download (Read resumes it once drained; the library continues with Range from the next
// byte), and an empty writer buffer answers FBS_SOURCE_NOT_READY (Write resumes the upload).

// streamBuffer is the most a stream holds between the library and Go, each way.
const streamBuffer = 4 << 20

// Range is the bytes of a range of the object: length bytes from offset (length < 0: to the
// end; offset < 0 with length < 0: the last -offset bytes). It fails with
// ErrRangeNotSatisfiable for a range past the end, and with ErrDownloadSizeExceeded, before
// reading, for one larger than maxSize.
func (r *Reference) Range(ctx context.Context, offset, length, maxSize int64) ([]byte, error) {
	result, err := await(ctx, r, func(h C.uintptr_t) C.int {
		return C.fbsgo_get_range_async(r.raw, C.int64_t(offset), C.int64_t(length), C.int64_t(maxSize), h)
	})
	return result.data, err
}

// ObjectReader streams a download (see Reference.NewReader). Read and Close are for one
// goroutine at a time; Task may be used from any.
type ObjectReader struct {
	task *Task
	key  uint64

	mu       sync.Mutex
	changed  *sync.Cond
	blocks   [][]byte // received, not read yet
	buffered int
	paused   bool // the sink paused the download: Read is behind
	ended    bool
	stopping bool // Close before the end: refuse further bytes
}

var readers registry[*ObjectReader]

// NewReader streams the object in constant memory. A dropped connection continues with Range
// from the first byte not delivered; an object replaced meanwhile fails the read with
// ErrObjectChanged. Read returns io.EOF after the last byte once the download succeeded (the
// whole object's CRC32C checked), else its error; the end of ctx cancels the download.
// Close the reader to stop early.
func (r *Reference) NewReader(ctx context.Context) (*ObjectReader, error) {
	return r.NewRangeReader(ctx, 0, -1)
}

// NewRangeReader streams the range (offset, length) of the object, as Range reads it.
func (r *Reference) NewRangeReader(ctx context.Context, offset, length int64) (*ObjectReader, error) {
	reader := &ObjectReader{}
	reader.changed = sync.NewCond(&reader.mu)
	reader.key = readers.insert(reader)
	defer runtime.KeepAlive(r)
	task, err := startTask(ctx, r.storage, func(out **C.fbs_task) C.int {
		return C.fbsgo_stream(r.raw, C.int64_t(offset), C.int64_t(length), C.uintptr_t(reader.key), out)
	})
	if err != nil {
		readers.remove(reader.key)
		return nil, err
	}
	reader.mu.Lock()
	reader.task = task
	reader.mu.Unlock()
	go func() {
		<-task.done // the sink is not called after the end
		readers.remove(reader.key)
		reader.mu.Lock()
		reader.ended = true
		reader.changed.Broadcast()
		reader.mu.Unlock()
	}()
	return reader, nil
}

//export fbsgoSink
func fbsgoSink(bytes unsafe.Pointer, length C.size_t, key C.uintptr_t) C.int {
	reader := readers.get(uint64(key))
	if reader == nil {
		return C.int(CodeCancelled)
	}
	reader.mu.Lock()
	defer reader.mu.Unlock()
	if reader.stopping {
		return C.int(CodeCancelled)
	}
	reader.blocks = append(reader.blocks, C.GoBytes(bytes, C.int(length)))
	reader.buffered += int(length)
	if reader.buffered >= streamBuffer && !reader.paused && reader.task != nil {
		// Under the lock, so that Read's resume comes after it; on this thread the pause acts
		// at once: no further byte arrives until the resume.
		reader.paused = true
		C.fbs_task_pause(reader.task.raw)
	}
	reader.changed.Broadcast()
	return 0
}

// Task is the download's task: its progress, and SetMaxSpeed. Pausing it by hand stops Read
// until it is resumed.
func (o *ObjectReader) Task() *Task {
	return o.task
}

// Read reads the next bytes of the download (see NewReader).
func (o *ObjectReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	o.mu.Lock()
	for len(o.blocks) == 0 && !o.ended {
		o.changed.Wait()
	}
	if len(o.blocks) == 0 {
		o.mu.Unlock()
		readers.remove(o.key) // the sink is not called after the end
		if _, err := o.task.Wait(context.Background()); err != nil {
			return 0, err
		}
		return 0, io.EOF
	}
	n := copy(p, o.blocks[0])
	if o.blocks[0] = o.blocks[0][n:]; len(o.blocks[0]) == 0 {
		o.blocks[0] = nil
		o.blocks = o.blocks[1:]
	}
	o.buffered -= n
	resume := o.paused && o.buffered <= streamBuffer/4 && !o.ended
	if resume {
		o.paused = false
	}
	o.mu.Unlock()
	if resume {
		if err := o.task.Resume(); err != nil {
			return n, err
		}
	}
	return n, nil
}

// WriteTo copies the rest of the download to w (io.Copy uses it).
func (o *ObjectReader) WriteTo(w io.Writer) (int64, error) {
	var total int64
	buffer := make([]byte, 256<<10)
	for {
		n, err := o.Read(buffer)
		if n > 0 {
			written, werr := w.Write(buffer[:n])
			total += int64(written)
			if werr != nil {
				return total, werr
			}
		}
		if err == io.EOF {
			return total, nil
		}
		if err != nil {
			return total, err
		}
	}
}

// Close stops the download if it is still running and returns once it has ended.
func (o *ObjectReader) Close() error {
	o.mu.Lock()
	o.stopping = true
	o.blocks, o.buffered = nil, 0
	ended := o.ended
	o.mu.Unlock()
	if !ended {
		_ = o.task.Cancel()
	}
	<-o.task.done
	readers.remove(o.key)
	return nil
}

// DownloadTo streams the object to w in constant memory and returns the count written; the
// error is the download's or w's. (Not WriteTo: that name is io.WriterTo's, without a context.)
func (r *Reference) DownloadTo(ctx context.Context, w io.Writer) (int64, error) {
	reader, err := r.NewReader(ctx)
	if err != nil {
		return 0, err
	}
	defer reader.Close()
	return reader.WriteTo(w)
}

// ObjectWriter streams an upload of unknown length (see Reference.NewWriter). Write and
// Close are for one goroutine at a time; Task may be used from any.
type ObjectWriter struct {
	task     *Task
	key      uint64
	metadata *Metadata
	ctx      context.Context // NewWriter's: ended before Close, it aborts the upload

	mu       sync.Mutex
	changed  *sync.Cond
	blocks   [][]byte // written, not handed to the library yet
	buffered int
	waiting  bool  // the source answered NOT_READY and nothing resumed the upload since
	finished bool  // no more writes: the source reports the end
	failed   error // the source fails the upload with this (Abort, a failed io.Reader)
	ended    bool
}

var writers registry[*ObjectWriter]

// NewWriter uploads what is written to it, in constant memory, with the writable fields and
// custom metadata of metadata (may be nil). Close finishes the upload and returns its error;
// Metadata then is the stored object's. Up to 256 KiB goes in one request, more in a
// resumable session; if the upload fails or is aborted no object is stored. The end of ctx
// cancels it.
func (r *Reference) NewWriter(ctx context.Context, metadata *MetadataChanges) (*ObjectWriter, error) {
	writer := &ObjectWriter{ctx: ctx}
	writer.changed = sync.NewCond(&writer.mu)
	writer.key = writers.insert(writer)
	defer runtime.KeepAlive(r)
	task, err := withChanges(metadata, func(m *C.fbs_metadata) (*Task, error) {
		return startTask(ctx, r.storage, func(out **C.fbs_task) C.int {
			return C.fbsgo_put_stream(r.raw, C.uintptr_t(writer.key), m, out)
		})
	})
	if err != nil {
		writers.remove(writer.key)
		return nil, err
	}
	writer.task = task
	go func() {
		<-task.done
		writers.remove(writer.key)
		writer.mu.Lock()
		writer.ended = true
		writer.blocks, writer.buffered = nil, 0
		writer.changed.Broadcast()
		writer.mu.Unlock()
	}()
	return writer, nil
}

//export fbsgoSource
func fbsgoSource(buffer unsafe.Pointer, capacity C.size_t, key C.uintptr_t) C.int64_t {
	writer := writers.get(uint64(key))
	if writer == nil {
		return C.int64_t(CodeCancelled)
	}
	writer.mu.Lock()
	defer writer.mu.Unlock()
	if writer.failed != nil {
		return C.int64_t(CodeCancelled)
	}
	if len(writer.blocks) == 0 {
		if writer.finished {
			return 0
		}
		writer.waiting = true
		return C.FBS_SOURCE_NOT_READY
	}
	n := copy(unsafe.Slice((*byte)(buffer), int(capacity)), writer.blocks[0])
	if writer.blocks[0] = writer.blocks[0][n:]; len(writer.blocks[0]) == 0 {
		writer.blocks[0] = nil
		writer.blocks = writer.blocks[1:]
	}
	writer.buffered -= n
	writer.changed.Broadcast()
	return C.int64_t(n)
}

// Task is the upload's task: its progress, pause/resume and SetMaxSpeed.
func (w *ObjectWriter) Task() *Task {
	return w.task
}

// wakeSource resumes the upload if its source is waiting for bytes. The library runs a resume
// on the transfer thread after the source's call that set waiting, so none is lost.
func (w *ObjectWriter) wakeSource() {
	w.mu.Lock()
	waiting := w.waiting
	w.waiting = false
	w.mu.Unlock()
	if waiting {
		_ = w.task.Resume()
	}
}

// Write queues a copy of p for the upload, waiting while the buffer is full (so memory holds
// at most the buffer and one p). After the upload
// ended it returns the upload's error (or ErrInvalidArgument after Close).
func (w *ObjectWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	for w.buffered >= streamBuffer && !w.ended {
		w.changed.Wait()
	}
	ended, finished := w.ended, w.finished || w.failed != nil
	if !ended && !finished && len(p) > 0 {
		w.blocks = append(w.blocks, append([]byte(nil), p...))
		w.buffered += len(p)
	}
	w.mu.Unlock()
	switch {
	case ended:
		_, err := w.task.Wait(context.Background())
		if err == nil {
			err = &Error{Code: CodeInvalidArgument, Message: "The upload has ended"}
		}
		return 0, err
	case finished:
		return 0, &Error{Code: CodeInvalidArgument, Message: "The writer is closed"}
	}
	w.wakeSource()
	return len(p), nil
}

// Close reports the end of the bytes, waits for the upload and returns its error. If the
// writer's context ended before Close, the upload is aborted (nothing is stored) and Close
// returns the context's error, as cloud.google.com/go/storage's Writer does: the end of the bytes
// never races the cancel.
func (w *ObjectWriter) Close() error {
	if err := w.ctx.Err(); err != nil {
		w.Abort(err)
		_, err = w.task.Wait(context.Background())
		return err
	}
	w.mu.Lock()
	w.finished = true
	w.mu.Unlock()
	w.wakeSource()
	snapshot, err := w.task.Wait(context.Background())
	writers.remove(w.key) // the source is not called after the end
	if err == nil {
		w.metadata = snapshot.Metadata
	}
	return err
}

// Abort ends the upload without storing anything; cause (may be nil) is wrapped by its error.
func (w *ObjectWriter) Abort(cause error) {
	if cause == nil {
		cause = ErrCancelled
	}
	w.mu.Lock()
	if w.failed == nil {
		w.failed = cause
	}
	w.mu.Unlock()
	w.task.cancelFor(cause)
	<-w.task.done
	writers.remove(w.key)
}

// Metadata is the stored object's metadata after a successful Close; nil before.
func (w *ObjectWriter) Metadata() *Metadata {
	return w.metadata
}

// PutReader uploads what source yields up to io.EOF, in constant memory (as NewWriter). A
// read error fails the task with ErrCancelled wrapping that error. The task starts at once.
func (r *Reference) PutReader(ctx context.Context, source io.Reader, metadata *MetadataChanges) (*Task, error) {
	writer, err := r.NewWriter(ctx, metadata)
	if err != nil {
		return nil, err
	}
	go func() {
		if _, err := io.Copy(writer, source); err != nil {
			writer.Abort(err)
			return
		}
		_ = writer.Close()
	}()
	return writer.task, nil
}
