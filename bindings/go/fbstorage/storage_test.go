package fbstorage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

var background = context.Background()

func TestUploadDataWithMetadataThenReadItBack(t *testing.T) {
	for _, flavor := range flavors {
		e := emulatorFor(t, flavor)
		s := e.storage(t)
		r, err := s.Reference(unique("data/with metadata.txt"))
		must(t, err)
		metadata := &MetadataChanges{ContentType: String("text/plain"), CacheControl: String("no-cache"), Custom: map[string]string{"owner": "go"}}
		done := upload(t, r, []byte("hello, go"), metadata)
		if done.Status != StatusSuccess || done.Metadata.Size != 9 || done.Metadata.ContentType != "text/plain" {
			t.Fatalf("%s: %+v", flavor, done)
		}
		read, err := r.Metadata(background)
		must(t, err)
		if read.FullPath != r.FullPath() || read.CacheControl != "no-cache" || read.Custom["owner"] != "go" || read.TimeCreated.IsZero() || read.MD5Hash == "" {
			t.Fatalf("%s: %+v", flavor, read)
		}
		data, err := r.Data(background, 1024)
		must(t, err)
		if string(data) != "hello, go" {
			t.Fatalf("%q", data)
		}
		if _, err := r.Data(background, 4); !errors.Is(err, ErrDownloadSizeExceeded) {
			t.Fatalf("%v", err)
		}
		link, err := r.DownloadURL(background)
		must(t, err)
		if !strings.HasPrefix(link, "http://"+e.address()+"/v0/b/go-tests/o/") || !strings.Contains(link, "token=") {
			t.Fatal(link)
		}
	}
}

func TestUploadAFileWithProgressEventsInOrder(t *testing.T) {
	for _, flavor := range flavors {
		e := emulatorFor(t, flavor)
		s := e.storage(t)
		must(t, s.SetUploadChunkSize(smallChunk))
		data := payload(smallChunk*4 + 1000)
		name := unique("file/upload.bin")
		e.slowChunks(t, name, 30) // the observers below come before the first chunk ends
		r, _ := s.Reference(name)
		task, err := r.PutFile(background, tempFile(t, data), &MetadataChanges{Custom: map[string]string{"source": "file"}})
		must(t, err)
		recorded := newEvents()
		recorded.observeAll(t, task)
		done := wait(t, task)
		statuses := recorded.statuses()
		if statuses[0] != StatusResume || statuses[len(statuses)-1] != StatusSuccess {
			t.Fatalf("%s: %v", flavor, statuses)
		}
		var progress []int64
		for _, snapshot := range recorded.all()[1 : len(statuses)-1] {
			if snapshot.Status != StatusProgress {
				t.Fatalf("%v", statuses)
			}
			progress = append(progress, snapshot.BytesTransferred)
		}
		for i := 1; i < len(progress); i++ {
			if progress[i] < progress[i-1] {
				t.Fatalf("progress went back: %v", progress)
			}
		}
		if len(progress) < 4 || progress[len(progress)-1] != int64(len(data)) || done.TotalBytes != int64(len(data)) {
			t.Fatalf("%s: %v, %+v", flavor, progress, done)
		}
		if done.Metadata.ContentType != "application/octet-stream" || done.Metadata.Custom["source"] != "file" {
			t.Fatalf("%+v", done.Metadata)
		}
		stored, err := r.Data(background, math.MaxInt64)
		must(t, err)
		if !bytes.Equal(stored, data) {
			t.Fatal("stored bytes differ")
		}
	}
}

func TestPauseThenResumeContinuesTheUpload(t *testing.T) {
	for _, flavor := range flavors {
		s, name := emulatorFor(t, flavor).slowStorage(t, "paused", 100)
		data := payload(smallChunk * 6)
		r, _ := s.Reference(name)
		task, err := r.PutData(background, data, nil)
		must(t, err)
		recorded := newEvents()
		recorded.observeAll(t, task)
		pauseAfter(t, task, smallChunk)
		paused := recorded.waitFor(t, StatusPause)
		if paused.BytesTransferred >= int64(len(data)) {
			t.Fatalf("%s: %+v", flavor, paused)
		}
		must(t, task.Resume())
		wait(t, task)
		statuses := recorded.statuses()
		resumedAfterPause := false
		for i, status := range statuses {
			resumedAfterPause = resumedAfterPause || (status == StatusResume && i > 0 && contains(statuses[:i], StatusPause))
		}
		if !resumedAfterPause {
			t.Fatalf("%v", statuses)
		}
		stored, _ := r.Data(background, math.MaxInt64)
		if !bytes.Equal(stored, data) {
			t.Fatal("stored bytes differ")
		}
	}
}

// pauseAfter pauses the task from its own callback thread once bytes were sent: sooner than a
// test goroutine woken by the event could.
func pauseAfter(t *testing.T, task *Task, bytes int64) {
	var paused atomic.Bool
	_, err := task.Observe(StatusProgress, func(s Snapshot) {
		if s.BytesTransferred >= bytes && !paused.Swap(true) {
			expect(t, task.Pause())
		}
	})
	must(t, err)
}

func contains(statuses []TaskStatus, wanted TaskStatus) bool {
	for _, status := range statuses {
		if status == wanted {
			return true
		}
	}
	return false
}

func TestCancellingTheContextCancelsTheTask(t *testing.T) {
	for _, flavor := range flavors {
		e := emulatorFor(t, flavor)
		s, name := e.slowStorage(t, "cancelled", 100)
		r, _ := s.Reference(name)
		ctx, cancel := context.WithCancel(background)
		task, err := r.PutData(ctx, payload(smallChunk*8), nil)
		must(t, err)
		recorded := newEvents()
		recorded.observeAll(t, task)
		recorded.waitFor(t, StatusProgress)
		cancel()
		failure := recorded.waitFor(t, StatusFailure)
		if !errors.Is(failure.Err, ErrCancelled) {
			t.Fatalf("%s: %v", flavor, failure.Err)
		}
		if _, err := task.Wait(background); !errors.Is(err, ErrCancelled) {
			t.Fatalf("%v", err)
		}
		if _, err := r.Metadata(background); !errors.Is(err, ErrObjectNotFound) {
			t.Fatalf("%v", err)
		}
	}
	// Wait's own context: when it ends first, the task is cancelled too.
	s, name := emulatorFor(t, "production").slowStorage(t, "wait-deadline", 200)
	r, _ := s.Reference(name)
	task, err := r.PutData(background, payload(smallChunk*8), nil)
	must(t, err)
	ctx, cancel := context.WithTimeout(background, 100*time.Millisecond)
	defer cancel()
	if _, err := task.Wait(ctx); !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, ErrCancelled) {
		t.Fatalf("%v", err)
	}
	select {
	case <-task.Done():
	default:
		t.Fatal("Wait returned before the task ended")
	}
	// A task whose own context's deadline passes: both errors, and the *Error underneath.
	s, name = emulatorFor(t, "firebase-tools").slowStorage(t, "task-deadline", 200)
	r, _ = s.Reference(name)
	deadline, stop := context.WithTimeout(background, 300*time.Millisecond)
	defer stop()
	task, err = r.PutData(deadline, payload(smallChunk*8), nil)
	must(t, err)
	var failure *Error
	if _, err := task.Wait(background); !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, ErrCancelled) || !errors.As(err, &failure) {
		t.Fatalf("%v", err)
	}
}

func TestOperationsReturnWhenTheirContextEnds(t *testing.T) {
	e := emulatorFor(t, "production")
	s := e.storage(t)
	name := unique("slow-metadata")
	r, _ := s.Reference(name)
	upload(t, r, []byte("x"), nil)
	e.addFault(t, fmt.Sprintf(`{"match": {"method": "GET", "path_prefix": "/v0/b/go-tests/o/%s"}, "times": 1, "action": {"delay_ms": 3000}}`, url.PathEscape(name)))
	ctx, cancel := context.WithTimeout(background, 200*time.Millisecond)
	defer cancel()
	started := time.Now()
	if _, err := r.Metadata(ctx); !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, ErrCancelled) || time.Since(started) > 2*time.Second {
		t.Fatalf("%v after %v", err, time.Since(started))
	}
	cancelled, stop := context.WithCancel(background)
	stop()
	if err := r.Delete(cancelled); !errors.Is(err, context.Canceled) || !errors.Is(err, ErrCancelled) {
		t.Fatalf("%v", err)
	}
	if _, err := r.PutData(cancelled, []byte("x"), nil); !errors.Is(err, context.Canceled) || !errors.Is(err, ErrCancelled) {
		t.Fatalf("%v", err)
	}
}

// TestResumeChildProcess is the child half of TestResumeAnUploadInANewProcess: it uploads until
// paused, writes the session, and exits without cleaning up, as a killed process would.
func TestResumeChildProcess(t *testing.T) {
	arguments := os.Getenv("FBS_RESUME_CHILD")
	if arguments == "" {
		t.Skip("run by TestResumeAnUploadInANewProcess")
	}
	parts := strings.Split(arguments, "|")
	var host string
	var port int
	fmt.Sscanf(strings.Replace(parts[0], ":", " ", 1), "%s %d", &host, &port)
	s, err := NewStorage("go-tests")
	must(t, err)
	must(t, s.UseEmulator(host, port))
	must(t, s.SetUploadChunkSize(smallChunk))
	r, _ := s.Reference(parts[1])
	task, err := r.PutFile(background, parts[2], nil)
	must(t, err)
	recorded := newEvents()
	recorded.observeAll(t, task)
	pauseAfter(t, task, 2*smallChunk)
	recorded.waitFor(t, StatusPause)
	session, err := task.UploadSession()
	must(t, err)
	must(t, os.WriteFile(parts[3], []byte(session), 0o600))
	os.Exit(0)
}

func TestResumeAnUploadInANewProcess(t *testing.T) {
	for _, flavor := range flavors {
		e := emulatorFor(t, flavor)
		name := unique("resumed/across processes.bin")
		e.slowChunks(t, name, 100)
		data := payload(smallChunk * 12)
		file := tempFile(t, data)
		sessionFile := filepath.Join(t.TempDir(), "session")
		child := exec.Command(os.Args[0], "-test.run", "^TestResumeChildProcess$")
		child.Env = append(os.Environ(), "FBS_RESUME_CHILD="+strings.Join([]string{e.address(), name, file, sessionFile}, "|"))
		if output, err := child.CombinedOutput(); err != nil {
			t.Fatalf("child: %v\n%s", err, output)
		}
		session, err := os.ReadFile(sessionFile)
		must(t, err)
		// From here on a chunk sent from offset 0 fails: the upload must continue, not start over.
		e.addFault(t, fmt.Sprintf(`{"match": {"query_contains": %q, "header": {"X-Goog-Upload-Offset": "0"}}, "times": 1000, "action": {"status": 400}}`,
			strings.ReplaceAll(url.QueryEscape(name), "+", "%20")))
		s := e.storage(t)
		must(t, s.SetUploadChunkSize(smallChunk))
		r, _ := s.Reference(name)
		task, err := r.PutFileResuming(background, file, string(session), &MetadataChanges{Custom: map[string]string{"resumed": "yes"}})
		must(t, err)
		recorded := newEvents()
		recorded.observeAll(t, task)
		wait(t, task)
		if first := recorded.waitFor(t, StatusProgress); first.BytesTransferred < 2*smallChunk {
			t.Fatalf("%s: resumed from %d", flavor, first.BytesTransferred)
		}
		stored, _ := r.Data(background, math.MaxInt64)
		if !bytes.Equal(stored, data) {
			t.Fatalf("%s: stored bytes differ", flavor)
		}
		other := tempFile(t, payload(smallChunk))
		if _, err := r.PutFileResuming(background, other, string(session), nil); !errors.Is(err, ErrInvalidArgument) {
			t.Fatalf("%v", err)
		}
	}
}

func TestMetadataUpdateAndDelete(t *testing.T) {
	s := emulatorFor(t, "production").storage(t)
	r, _ := s.Reference(unique("metadata.json"))
	created := upload(t, r, []byte("{}"), &MetadataChanges{ContentType: String("application/json"), ContentLanguage: String("en"),
		Custom: map[string]string{"a": "1", "b": "2"}})
	updated, err := r.UpdateMetadata(background, MetadataChanges{ContentLanguage: String(""), CacheControl: String("max-age=60"),
		Custom: map[string]string{"a": "one"}, DeleteCustom: []string{"b"}})
	must(t, err)
	if updated.ContentLanguage != "" || updated.CacheControl != "max-age=60" || updated.ContentType != "application/json" ||
		len(updated.Custom) != 1 || updated.Custom["a"] != "one" || updated.Metageneration <= created.Metadata.Metageneration {
		t.Fatalf("%+v", updated)
	}
	cleared, err := r.UpdateMetadata(background, MetadataChanges{ClearCustom: true})
	must(t, err)
	if len(cleared.Custom) != 0 {
		t.Fatalf("%+v", cleared.Custom)
	}
	must(t, r.Delete(background))
	_, err = r.Metadata(background)
	var failure *Error
	if !errors.As(err, &failure) || failure.Code != CodeObjectNotFound || failure.HTTPStatus != 404 || !errors.Is(err, ErrObjectNotFound) {
		t.Fatalf("%#v", err)
	}
	if err := r.Delete(background); !errors.Is(err, ErrObjectNotFound) {
		t.Fatalf("%v", err)
	}
}

func TestListPagesAndListAll(t *testing.T) {
	for _, flavor := range flavors {
		s := emulatorFor(t, flavor).storage(t)
		folder, _ := s.Reference(unique("listing"))
		for _, name := range []string{"a", "b", "c", "d", "e", "sub1/x", "sub2/y"} {
			child, _ := folder.Child(name)
			upload(t, child, []byte(name), nil)
		}
		var items []string
		prefixes := map[string]bool{}
		pages := 0
		folder.Pages(background, 2)(func(page *ListResult, err error) bool {
			must(t, err)
			pages++
			for _, item := range page.Items {
				items = append(items, item.Name())
			}
			for _, prefix := range page.Prefixes {
				prefixes[prefix.Name()] = true
			}
			return true
		})
		if strings.Join(items, ",") != "a,b,c,d,e" || len(prefixes) != 2 || pages < 3 {
			t.Fatalf("%s: %v %v %d", flavor, items, prefixes, pages)
		}
		stopped := 0
		folder.Pages(background, 2)(func(*ListResult, error) bool { stopped++; return false })
		if stopped != 1 {
			t.Fatalf("the iteration went on after yield returned false: %d", stopped)
		}
		all, err := folder.ListAll(background)
		must(t, err)
		if len(all.Items) != 5 || len(all.Prefixes) != 2 || all.Prefixes[0].Name() != "sub1" || all.PageToken != "" {
			t.Fatalf("%+v", all)
		}
		first, err := folder.List(background, 3, "")
		must(t, err)
		second, err := folder.List(background, 3, first.PageToken)
		must(t, err)
		if len(first.Items) != 3 || first.PageToken == "" || second.Items[0].Name() != "d" {
			t.Fatalf("%s: %+v %+v", flavor, first, second)
		}
		if _, err := folder.List(background, 1001, ""); !errors.Is(err, ErrInvalidArgument) {
			t.Fatalf("%v", err)
		}
	}
}

func TestDownloadToAFileAndFailForAMissingObject(t *testing.T) {
	s := emulatorFor(t, "production").storage(t)
	r, _ := s.Reference(unique("download.bin"))
	data := payload(smallChunk*2 + 5)
	upload(t, r, data, nil)
	target := filepath.Join(t.TempDir(), "downloaded")
	task, err := r.WriteToFile(background, target)
	must(t, err)
	if done := wait(t, task); done.BytesTransferred != int64(len(data)) {
		t.Fatalf("%+v", done)
	}
	written, _ := os.ReadFile(target)
	if !bytes.Equal(written, data) {
		t.Fatal("downloaded bytes differ")
	}
	missing, _ := s.Reference(unique("missing"))
	untouched := tempFile(t, []byte("keep me"))
	task, err = missing.WriteToFile(background, untouched)
	must(t, err)
	_, err = task.Wait(background)
	var failure *Error
	if !errors.As(err, &failure) || failure.Code != CodeObjectNotFound || failure.HTTPStatus != 404 {
		t.Fatalf("%v", err)
	}
	if kept, _ := os.ReadFile(untouched); string(kept) != "keep me" {
		t.Fatalf("%q", kept)
	}
}

func TestBadInputFailsAtOnceWithAClearError(t *testing.T) {
	s := emulatorFor(t, "production").storage(t)
	if _, err := s.Reference("line\nbreak"); !errors.Is(err, ErrPath) {
		t.Fatalf("%v", err)
	}
	if _, err := NewStorage(""); !errors.Is(err, ErrPath) {
		t.Fatalf("%v", err)
	}
	root, _ := s.Reference("")
	if _, err := root.PutData(background, []byte("x"), nil); !errors.Is(err, ErrPath) {
		t.Fatalf("%v", err)
	}
	if fromURL, err := s.ReferenceForURL("gs://go-tests/a/b"); err != nil || fromURL.FullPath() != "a/b" {
		t.Fatal(fromURL, err)
	}
	if _, err := s.ReferenceForURL("gs://another-bucket/a"); !errors.Is(err, ErrBucketMismatch) {
		t.Fatalf("%v", err)
	}
	if root.Parent() != nil {
		t.Fatal("the root has a parent")
	}
	r, _ := s.Reference("a/b/c")
	if r.Parent().FullPath() != "a/b" || r.Root().FullPath() != "" || r.String() != "gs://go-tests/a/b/c" {
		t.Fatal(r.Parent().FullPath(), r.String())
	}
	_, err := r.PutData(background, []byte("x"), &MetadataChanges{ContentType: String("text/plain\r\nX-Evil: 1")})
	if !errors.Is(err, ErrInvalidArgument) || !strings.Contains(err.Error(), "FBS_ERR_INVALID_ARGUMENT") {
		t.Fatalf("%v", err)
	}
	if _, err := r.PutFile(background, "/nonexistent/file", nil); err == nil || !strings.Contains(err.Error(), "/nonexistent/file") {
		t.Fatalf("%v", err)
	}
	if Version() == "" || CodeObjectNotFound.Error() != "FBS_ERR_OBJECT_NOT_FOUND" {
		t.Fatal(Version(), CodeObjectNotFound.Error())
	}
}

func TestClosingTheStorageCancelsRunningTasksSafely(t *testing.T) {
	s, name := emulatorFor(t, "production").slowStorage(t, "closed-storage", 200)
	r, _ := s.Reference(name)
	var tasks []*Task
	for i := 0; i < 3; i++ {
		child, _ := r.Child(fmt.Sprint(i))
		task, err := child.PutData(background, payload(smallChunk*4), nil)
		must(t, err)
		tasks = append(tasks, task)
	}
	recorded := newEvents()
	recorded.observeAll(t, tasks[0])
	recorded.waitFor(t, StatusProgress)
	s.Close()
	s.Close() // a second close does nothing
	for _, task := range tasks {
		if _, err := task.Wait(background); !errors.Is(err, ErrCancelled) {
			t.Fatalf("%v", err)
		}
	}
	if _, err := r.Metadata(background); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("%v", err)
	}
	if r.FullPath() != name {
		t.Fatal("the reference itself stays usable")
	}
}

func TestObserversAreReleasedWhenRemovedAndAfterTheEnd(t *testing.T) {
	s, name := emulatorFor(t, "production").slowStorage(t, "released", 50)
	before := observers.size()
	r, _ := s.Reference(name)
	task, err := r.PutData(background, payload(smallChunk*3), nil)
	must(t, err)
	id, err := task.Observe(StatusPause, func(Snapshot) {})
	must(t, err)
	must(t, task.RemoveObserver(id))
	// One observer that removes itself from its own call.
	ids := make(chan ObserverID, 1)
	var calls atomic.Int32
	self, err := task.Observe(StatusProgress, func(Snapshot) {
		calls.Add(1)
		select {
		case own := <-ids:
			expect(t, task.RemoveObserver(own))
		default:
		}
	})
	must(t, err)
	ids <- self
	_, err = task.Observe(StatusPause, func(Snapshot) {}) // never runs: released at the end
	must(t, err)
	wait(t, task)
	finished := make(chan struct{})
	_, err = task.Observe(StatusSuccess, func(Snapshot) { close(finished) }) // fires once after the end
	must(t, err)
	<-finished
	if _, err := task.Observe(StatusPause, func(Snapshot) {}); err != nil {
		t.Fatal(err)
	}
	s.Close() // returns once every callback has returned
	if after := observers.size(); after != before {
		t.Fatalf("%d observers left behind", after-before)
	}
	if calls.Load() == 0 {
		t.Fatal("the self-removing observer never ran")
	}
}

// A storage reachable only through its references and tasks is not closed by the collector.
func TestAStorageReachableThroughItsReferencesStaysOpen(t *testing.T) {
	e := emulatorFor(t, "production")
	reference := func() *Reference {
		s, err := NewStorage("go-tests")
		must(t, err)
		must(t, s.UseEmulator(e.host, e.port))
		r, err := s.Reference(unique("collected"))
		must(t, err)
		return r
	}()
	collectGarbage(t)
	task, err := reference.PutData(background, []byte("still open"), nil)
	must(t, err)
	reference = nil
	collectGarbage(t)
	if done := wait(t, task); done.Metadata.Size != 10 {
		t.Fatalf("%+v", done)
	}
}

// collectGarbage returns once a collection ran the finalizers of what was unreachable before it.
func collectGarbage(t *testing.T) {
	finalized := make(chan struct{})
	sentinel := new([16]byte)
	runtime.SetFinalizer(sentinel, func(*[16]byte) { close(finalized) })
	sentinel = nil
	deadline := time.After(10 * time.Second)
	for {
		runtime.GC()
		select {
		case <-finalized:
			return
		case <-deadline:
			t.Fatal("no collection ran the finalizers")
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// Waiting for a task from one of its own final observers returns its outcome instead of hanging.
func TestWaitFromAFinalObserverReturns(t *testing.T) {
	s := emulatorFor(t, "production").storage(t)
	r, _ := s.Reference(unique("wait-in-success"))
	task, err := r.PutData(background, []byte("x"), nil)
	must(t, err)
	waited := make(chan error, 1)
	_, err = task.Observe(StatusSuccess, func(Snapshot) {
		_, err := task.Wait(background)
		waited <- err
	})
	must(t, err)
	select {
	case err := <-waited:
		must(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("Wait from the observer hung")
	}
}
