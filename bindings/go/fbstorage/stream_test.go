package fbstorage

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/iotest"
	"time"
)

// uploaded is a fresh object holding data, uploaded through PutReader.
func uploaded(t *testing.T, s *Storage, name string, data []byte) *Reference {
	t.Helper()
	r, err := s.Reference(unique(name))
	must(t, err)
	task, err := r.PutReader(background, iotest.HalfReader(bytes.NewReader(data)), nil)
	must(t, err)
	if done := wait(t, task); done.Metadata.Size != int64(len(data)) {
		t.Fatalf("uploaded %d bytes of %d", done.Metadata.Size, len(data))
	}
	return r
}

func readAll(t *testing.T, reader *ObjectReader) []byte {
	t.Helper()
	defer reader.Close()
	data, err := io.ReadAll(reader)
	must(t, err)
	return data
}

func TestRangesAndStreamsReadTheRightBytes(t *testing.T) {
	for _, flavor := range flavors {
		s := emulatorFor(t, flavor).storage(t)
		data := payload(3<<20 + 17)
		r := uploaded(t, s, "stream/whole.bin", data)

		reader, err := r.NewReader(background)
		must(t, err)
		if got := readAll(t, reader); !bytes.Equal(got, data) {
			t.Fatalf("%s: read %d bytes, not the %d uploaded", flavor, len(got), len(data))
		}
		ranges := []struct{ offset, length int64 }{{1000, 5000}, {-100, -1}, {int64(len(data)) - 10, -1}, {int64(len(data)), 0}}
		for _, rg := range ranges {
			start, end := rg.offset, rg.offset+rg.length
			if rg.offset < 0 {
				start = int64(len(data)) + rg.offset
			}
			if rg.length < 0 {
				end = int64(len(data))
			}
			reader, err := r.NewRangeReader(background, rg.offset, rg.length)
			must(t, err)
			if got := readAll(t, reader); !bytes.Equal(got, data[start:end]) {
				t.Fatalf("%s: range %v: %d bytes", flavor, rg, len(got))
			}
			got, err := r.Range(background, rg.offset, rg.length, 1<<30)
			must(t, err)
			if !bytes.Equal(got, data[start:end]) {
				t.Fatalf("%s: Range %v: %d bytes", flavor, rg, len(got))
			}
		}
		if _, err := r.Range(background, int64(len(data)), 1, 100); !errors.Is(err, ErrRangeNotSatisfiable) {
			t.Fatalf("%s: %v", flavor, err)
		}
		if _, err := r.Range(background, 0, 1000, 999); !errors.Is(err, ErrDownloadSizeExceeded) {
			t.Fatalf("%s: %v", flavor, err)
		}
		if _, err := r.NewRangeReader(background, -5, 3); !errors.Is(err, ErrInvalidArgument) {
			t.Fatalf("%s: %v", flavor, err)
		}
		past, err := r.NewRangeReader(background, int64(len(data))+1, -1)
		must(t, err)
		if _, err := io.ReadAll(past); !errors.Is(err, ErrRangeNotSatisfiable) {
			t.Fatalf("%s: %v", flavor, err)
		}
		var sink bytes.Buffer
		if n, err := r.DownloadTo(background, &sink); err != nil || n != int64(len(data)) || !bytes.Equal(sink.Bytes(), data) {
			t.Fatalf("%s: DownloadTo: %d, %v", flavor, n, err)
		}
	}
}

// A reader nobody reads pauses its download at the buffer's bound: memory stays constant.
func TestAnUnreadStreamPausesAtItsBound(t *testing.T) {
	s := emulatorFor(t, "production").storage(t)
	data := payload(3 * streamBuffer)
	r := uploaded(t, s, "stream/bounded.bin", data)
	reader, err := r.NewReader(background)
	must(t, err)
	recorded := newEvents()
	recorded.observeAll(t, reader.Task())
	paused := recorded.waitFor(t, StatusPause)
	// The pause lands after the bytes already on their way (up to ~1.2 MiB seen on a loaded machine).
	if paused.BytesTransferred < streamBuffer/2 || paused.BytesTransferred > streamBuffer+2<<20 {
		t.Fatalf("paused after %d bytes (buffer %d)", paused.BytesTransferred, streamBuffer)
	}
	if got := readAll(t, reader); !bytes.Equal(got, data) {
		t.Fatalf("read %d bytes of %d", len(got), len(data))
	}
	if len(recorded.statuses()) == 0 || recorded.statuses()[len(recorded.statuses())-1] != StatusSuccess {
		t.Fatalf("%v", recorded.statuses())
	}
}

type loggedRequest struct {
	Method  string            `json:"method"`
	Path    string            `json:"path"`
	Headers map[string]string `json:"headers"`
	Dropped bool              `json:"dropped"`
}

// requestsFor is the emulator's log of the requests whose path holds name, once no request is
// in flight (a request is logged when it has been answered, after its client may have moved on).
func (e *emulator) requestsFor(t *testing.T, name string) []loggedRequest {
	deadline := time.Now().Add(10 * time.Second)
	for {
		response, err := http.Get("http://" + e.address() + "/_emulator/requests")
		must(t, err)
		var log struct {
			Requests []loggedRequest
			InFlight int `json:"in_flight"`
		}
		err = json.NewDecoder(response.Body).Decode(&log)
		response.Body.Close()
		must(t, err)
		if log.InFlight == 0 || time.Now().After(deadline) {
			var found []loggedRequest
			for _, request := range log.Requests {
				if strings.Contains(request.Path, name) {
					found = append(found, request)
				}
			}
			return found
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// cuttingProxy forwards connections to e; the first response it forwards is cut after
// cutAfter bytes (the emulator's faults cannot cut a response body mid-way).
func (e *emulator) cuttingProxy(t *testing.T, cutAfter int64) (string, int) {
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	t.Cleanup(func() { listener.Close() })
	var cuts atomic.Int32
	cuts.Store(1)
	go func() {
		for {
			client, err := listener.Accept()
			if err != nil {
				return
			}
			server, err := net.Dial("tcp", e.address())
			if err != nil {
				client.Close()
				continue
			}
			go func() { _, _ = io.Copy(server, client); server.Close() }()
			go func() {
				if cuts.Add(-1) >= 0 {
					_, _ = io.CopyN(client, server, cutAfter)
				} else {
					_, _ = io.Copy(client, server)
				}
				client.Close()
				server.Close()
			}()
		}
	}()
	address := listener.Addr().(*net.TCPAddr)
	return address.IP.String(), address.Port
}

// A 503 (an emulator fault) and a connection cut mid-body: the stream goes on with Range from
// the first byte not delivered, each byte once.
func TestAStreamResumesWithRangeAfterFaults(t *testing.T) {
	for _, flavor := range flavors {
		e := emulatorFor(t, flavor)
		data := payload(2<<20 + 5)
		r := uploaded(t, e.storage(t), "stream/cut.bin", data)
		e.addFault(t, fmt.Sprintf(`{"match": {"method": "GET", "path_prefix": "/v0/b/go-tests/o/%s"}, "times": 1, "action": {"status": 503}}`,
			url.PathEscape(r.FullPath())))
		proxied := e.storage(t)
		host, port := e.cuttingProxy(t, 300000)
		must(t, proxied.UseEmulator(host, port))
		through, err := proxied.Reference(r.FullPath())
		must(t, err)
		reader, err := through.NewRangeReader(background, 10, -1)
		must(t, err)
		if got := readAll(t, reader); !bytes.Equal(got, data[10:]) {
			t.Fatalf("%s: read %d bytes of %d", flavor, len(got), len(data)-10)
		}
		var ranges []string
		for _, request := range e.requestsFor(t, url.PathEscape(r.FullPath())) {
			if request.Method == "GET" {
				ranges = append(ranges, request.Headers["Range"])
			}
		}
		// The 503, the cut answer, then the rest from where the cut left off.
		if len(ranges) < 3 || ranges[0] != "bytes=10-" || ranges[1] != "bytes=10-" || ranges[len(ranges)-1] == "bytes=10-" {
			t.Fatalf("%s: the GETs asked for %q", flavor, ranges)
		}
	}
}

func TestAWriterUploadsAStreamOfUnknownLength(t *testing.T) {
	for _, flavor := range flavors {
		s := emulatorFor(t, flavor).storage(t)
		must(t, s.SetUploadChunkSize(smallChunk))
		for _, size := range []int{0, 1000, 5*smallChunk + 3} {
			data := payload(size)
			r, _ := s.Reference(unique("stream/written.bin"))
			writer, err := r.NewWriter(background, &MetadataChanges{ContentType: String("application/x-test")})
			must(t, err)
			for rest := data; len(rest) > 0; {
				n := len(rest)
				if n > 70001 {
					n = 70001
				}
				written, err := writer.Write(rest[:n])
				must(t, err)
				rest = rest[written:]
			}
			must(t, writer.Close())
			if m := writer.Metadata(); m.Size != int64(size) || m.ContentType != "application/x-test" {
				t.Fatalf("%s: %+v", flavor, m)
			}
			got, err := r.Data(background, 1<<30)
			must(t, err)
			if !bytes.Equal(got, data) {
				t.Fatalf("%s: stored %d bytes of %d", flavor, len(got), size)
			}
			if _, err := writer.Write([]byte("late")); !errors.Is(err, ErrInvalidArgument) {
				t.Fatalf("%s: a write after Close: %v", flavor, err)
			}
		}
		// Aborted, or fed by a failing reader: nothing is stored.
		r, _ := s.Reference(unique("stream/aborted.bin"))
		writer, err := r.NewWriter(background, nil)
		must(t, err)
		_, err = writer.Write(payload(3 * smallChunk))
		must(t, err)
		writer.Abort(nil)
		if err := writer.Close(); !errors.Is(err, ErrCancelled) {
			t.Fatalf("%s: %v", flavor, err)
		}
		broken := errors.New("the disk went away")
		task, err := r.PutReader(background, io.MultiReader(bytes.NewReader(payload(2*smallChunk)), iotest.ErrReader(broken)), nil)
		must(t, err)
		if _, err := task.Wait(background); !errors.Is(err, broken) || !errors.Is(err, ErrCancelled) {
			t.Fatalf("%s: %v", flavor, err)
		}
		if _, err := r.Metadata(background); !errors.Is(err, ErrObjectNotFound) {
			t.Fatalf("%s: %v", flavor, err)
		}
	}
}

// A stream whose context ends fails with an error that is both the context's and ErrCancelled.
func TestStreamsEndWithTheirContext(t *testing.T) {
	e := emulatorFor(t, "production")
	s := e.storage(t)
	r := uploaded(t, s, "stream/deadline.bin", payload(1000))
	e.addFault(t, fmt.Sprintf(`{"match": {"method": "GET", "path_prefix": "/v0/b/go-tests/o/%s"}, "times": 1, "action": {"delay_ms": 5000}}`,
		url.PathEscape(r.FullPath())))
	ctx, cancel := context.WithTimeout(background, 200*time.Millisecond)
	defer cancel()
	started := time.Now()
	reader, err := r.NewReader(ctx)
	must(t, err)
	if _, err := io.ReadAll(reader); !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, ErrCancelled) || time.Since(started) > 3*time.Second {
		t.Fatalf("%v after %v", err, time.Since(started))
	}
	var failure *Error
	if err := reader.Close(); err != nil || !errors.As(reader.Task().last.Err, &failure) || failure.Code != CodeCancelled {
		t.Fatalf("%v %v", err, failure)
	}

	cancelled, stop := context.WithCancel(background)
	w, _ := s.Reference(unique("stream/cancelled.bin"))
	writer, err := w.NewWriter(cancelled, nil)
	must(t, err)
	_, err = writer.Write(payload(1000))
	must(t, err)
	stop()
	if err := writer.Close(); !errors.Is(err, context.Canceled) || !errors.Is(err, ErrCancelled) {
		t.Fatalf("%v", err)
	}
	if _, err := w.Metadata(background); !errors.Is(err, ErrObjectNotFound) {
		t.Fatalf("%v", err)
	}
}

func TestSpeedCapsSlowADownload(t *testing.T) {
	s := emulatorFor(t, "production").storage(t)
	for _, set := range []func(int64) error{s.SetMaxUploadSpeed, s.SetMaxDownloadSpeed} {
		if err := set(-1); !errors.Is(err, ErrInvalidArgument) {
			t.Fatalf("%v", err)
		}
	}
	must(t, s.SetMaxUploadSpeed(3<<20))
	must(t, s.SetMaxDownloadSpeed(512<<10))
	up, err := s.MaxUploadSpeed()
	must(t, err)
	down, err := s.MaxDownloadSpeed()
	must(t, err)
	if up != 3<<20 || down != 512<<10 {
		t.Fatalf("caps %d, %d", up, down)
	}
	data := payload(3 << 19) // 1.5 MiB: 3 s at the cap
	r := uploaded(t, s, "stream/capped.bin", data)
	started := time.Now()
	reader, err := r.NewReader(background)
	must(t, err)
	must(t, reader.Task().SetMaxSpeed(1<<30)) // a task's cap only tightens the storage's
	if own, err := reader.Task().MaxSpeed(); err != nil || own != 1<<30 {
		t.Fatalf("%d %v", own, err)
	}
	if got := readAll(t, reader); !bytes.Equal(got, data) {
		t.Fatal("wrong bytes")
	}
	if elapsed := time.Since(started); elapsed < 1500*time.Millisecond {
		t.Fatalf("1.5 MiB at 512 KiB/s took %v", elapsed)
	}
	if err := reader.Task().SetMaxSpeed(-1); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("%v", err)
	}
}

func TestCloseModes(t *testing.T) {
	e := emulatorFor(t, "production")
	// KeepSessions: the running upload stops with ErrCancelled and keeps its session.
	s, name := e.slowStorage(t, "close-keep", 200)
	r, _ := s.Reference(name)
	task, err := r.PutData(background, payload(smallChunk*8), nil)
	must(t, err)
	recorded := newEvents()
	recorded.observeAll(t, task)
	recorded.waitFor(t, StatusProgress)
	must(t, s.CloseWith(CloseKeepSessions, 0))
	if _, err := task.Wait(background); !errors.Is(err, ErrCancelled) {
		t.Fatalf("%v", err)
	}
	if session, _ := task.UploadSession(); session == "" {
		t.Fatal("no session kept")
	}
	must(t, s.CloseWith(CloseCancel, 0)) // a second close does nothing
	s.Close()
	if _, err := r.Metadata(background); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("%v", err)
	}
	// Finish: a running upload completes.
	s, name = e.slowStorage(t, "close-finish", 20)
	r, _ = s.Reference(name)
	task, err = r.PutData(background, payload(smallChunk*3), nil)
	must(t, err)
	if err := s.CloseWith(CloseMode(7), 0); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("%v", err)
	}
	must(t, s.CloseWith(CloseFinish, 30*time.Second))
	if done, err := task.Wait(background); err != nil || done.Metadata.Size != smallChunk*3 {
		t.Fatalf("%v", err)
	}
}

func TestTheLogHandlerGetsLevelsAndLines(t *testing.T) {
	s := emulatorFor(t, "firebase-tools").storage(t)
	r, _ := s.Reference(unique("logged"))
	var mu sync.Mutex
	var lines []string
	SetLogHandler(func(level LogLevel, line string) {
		mu.Lock()
		lines = append(lines, level.String()+" "+line)
		mu.Unlock()
	})
	_, err := r.Metadata(background)
	SetLogHandler(nil)
	if !errors.Is(err, ErrObjectNotFound) {
		t.Fatalf("%v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	var debug bool
	for _, line := range lines {
		debug = debug || strings.HasPrefix(line, "DEBUG ") && strings.Contains(line, r.Name())
	}
	if !debug {
		t.Fatalf("no DEBUG line for the request: %q", lines)
	}
	count := len(lines)
	mu.Unlock()
	_, _ = r.Metadata(background)
	mu.Lock()
	if len(lines) != count {
		t.Fatalf("logged after SetLogHandler(nil): %q", lines[count:])
	}
}

func TestEnumsPrintTheirNames(t *testing.T) {
	for value, name := range map[fmt.Stringer]string{
		StatusProgress: "Progress", StatusFailure: "Failure", TaskStatus(9): "TaskStatus(9)",
		CodeObjectNotFound: "FBS_ERR_OBJECT_NOT_FOUND", LogWarning: "WARNING", LogLevel(0): "LogLevel(0)",
		CloseKeepSessions: "KeepSessions", CloseMode(5): "CloseMode(5)",
	} {
		if got := fmt.Sprint(value); got != name {
			t.Errorf("%q, not %q", got, name)
		}
	}
}
