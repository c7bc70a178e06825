package fbstorage

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Test support: the bundled emulator (one per flavor, on a free port, stopped when the test
// binary exits), its control API, unique names, and an event recorder.

var flavors = []string{"production", "firebase-tools"}

const smallChunk = 256 * 1024

type emulator struct {
	host string
	port int
}

var (
	emulatorsMu sync.Mutex
	emulators   = map[string]*emulator{}
	stopAll     []func()
)

// TestMain also starts one emulator for the Example functions, which find it as a user's
// program would: through FIREBASE_STORAGE_EMULATOR_HOST and FIREBASE_AUTH_EMULATOR_HOST.
func TestMain(m *testing.M) {
	e, err := startEmulator("production")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("FIREBASE_STORAGE_EMULATOR_HOST", e.address())
	os.Setenv("FIREBASE_AUTH_EMULATOR_HOST", e.address())
	code := m.Run()
	for i := len(stopAll) - 1; i >= 0; i-- { // last started, first stopped: as defers
		stopAll[i]()
	}
	os.Exit(code)
}

func repository() string {
	dir, _ := filepath.Abs("../../..")
	return dir
}

// emulatorFor starts the emulator of flavor on first use.
func emulatorFor(t testing.TB, flavor string) *emulator {
	return emulatorWith(t, flavor)
}

// emulatorWith starts the emulator of flavor with extra arguments on first use.
func emulatorWith(t testing.TB, flavor string, extra ...string) *emulator {
	emulatorsMu.Lock()
	defer emulatorsMu.Unlock()
	name := strings.Join(append([]string{flavor}, extra...), " ")
	if e := emulators[name]; e != nil {
		return e
	}
	e, err := startEmulator(flavor, extra...)
	if err != nil {
		t.Fatal(err)
	}
	emulators[name] = e
	return e
}

// startEmulator starts an emulator on a free port; it stops when the test binary exits.
func startEmulator(flavor string, extra ...string) (*emulator, error) {
	python := os.Getenv("FBS_PYTHON")
	if python == "" {
		python = filepath.Join(repository(), ".venv/bin/python")
	}
	cmd := exec.Command(python, "-m", "fbstorage.emulator", "--host", "127.0.0.1", "--port", "0", "--flavor", flavor, "--stop-on-stdin-eof", "--no-auth")
	cmd.Args = append(cmd.Args, extra...)
	cmd.Env = append(os.Environ(), "PYTHONPATH="+filepath.Join(repository(), "bindings/python"))
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the emulator: %w", err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "READY http://") {
		return nil, fmt.Errorf("the emulator printed %q (%v)", line, err)
	}
	address, _ := url.Parse(strings.TrimSpace(strings.TrimPrefix(line, "READY ")))
	e := &emulator{host: address.Hostname()}
	fmt.Sscan(address.Port(), &e.port)
	stopAll = append(stopAll, func() { stdin.Close(); _ = cmd.Wait() })
	return e, nil
}

func (e *emulator) address() string {
	return fmt.Sprintf("%s:%d", e.host, e.port)
}

// storage is a storage of bucket "go-tests" on this emulator, closed when the test ends.
func (e *emulator) storage(t testing.TB) *Storage {
	s, err := NewStorage("go-tests")
	must(t, err)
	must(t, s.UseEmulator(e.host, e.port))
	t.Cleanup(s.Close)
	return s
}

func (e *emulator) addFault(t testing.TB, fault string) {
	response, err := http.Post("http://"+e.address()+"/_emulator/faults", "application/json", strings.NewReader(fault))
	must(t, err)
	defer response.Body.Close()
	if response.StatusCode != 201 {
		t.Fatalf("adding a fault: %s", response.Status)
	}
}

// slowStorage is a storage sending smallChunk chunks, and a fresh object name (from name) whose
// chunks the emulator delays by delayMS, so a test can act while an upload runs.
func (e *emulator) slowStorage(t testing.TB, name string, delayMS int) (*Storage, string) {
	s := e.storage(t)
	must(t, s.SetUploadChunkSize(smallChunk))
	name = unique(name)
	e.slowChunks(t, name, delayMS)
	return s, name
}

// slowChunks delays every resumable chunk of objects whose name contains name.
func (e *emulator) slowChunks(t testing.TB, name string, delayMS int) {
	e.addFault(t, fmt.Sprintf(`{"match": {"query_contains": %q, "header": {"X-Goog-Upload-Command": "upload"}}, "times": 1000, "action": {"delay_ms": %d}}`,
		url.QueryEscape(name), delayMS))
}

var nextName atomic.Int64

// unique is an object path no other test (or run) uses.
func unique(name string) string {
	return fmt.Sprintf("%s-%d-%d", name, os.Getpid(), nextName.Add(1))
}

func payload(length int) []byte {
	data := make([]byte, length)
	for i := range data {
		data[i] = byte(i * 31 % 251)
	}
	return data
}

func tempFile(t testing.TB, data []byte) string {
	path := filepath.Join(t.TempDir(), "upload.bin")
	must(t, os.WriteFile(path, data, 0o600))
	return path
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// expect is must for goroutines and callbacks, where t.Fatal may not be called.
func expect(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Error(err)
	}
}

func wait(t testing.TB, task *Task) Snapshot {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	snapshot, err := task.Wait(ctx)
	must(t, err)
	return snapshot
}

func upload(t testing.TB, r *Reference, data []byte, metadata *MetadataChanges) Snapshot {
	t.Helper()
	task, err := r.PutData(context.Background(), data, metadata)
	must(t, err)
	return wait(t, task)
}

// events records a task's snapshots; tests wait on it for an event (never sleep to order them).
type events struct {
	mu        sync.Mutex
	snapshots []Snapshot
	changed   chan struct{}
}

func newEvents() *events {
	return &events{changed: make(chan struct{}, 1)}
}

func (e *events) observeAll(t testing.TB, task *Task) {
	for status := StatusResume; status <= StatusFailure; status++ {
		_, err := task.Observe(status, e.push)
		must(t, err)
	}
}

func (e *events) push(s Snapshot) {
	e.mu.Lock()
	e.snapshots = append(e.snapshots, s)
	e.mu.Unlock()
	select {
	case e.changed <- struct{}{}:
	default:
	}
}

// waitUntil returns the first event matching wanted, waiting up to 30 s for it.
func (e *events) waitUntil(t testing.TB, wanted func(Snapshot) bool) Snapshot {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		e.mu.Lock()
		for _, s := range e.snapshots {
			if wanted(s) {
				e.mu.Unlock()
				return s
			}
		}
		e.mu.Unlock()
		select {
		case <-e.changed:
		case <-deadline:
			t.Fatalf("event not seen within 30 s; saw %v", e.statuses())
		}
	}
}

func (e *events) waitFor(t testing.TB, status TaskStatus) Snapshot {
	t.Helper()
	return e.waitUntil(t, func(s Snapshot) bool { return s.Status == status })
}

func (e *events) all() []Snapshot {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]Snapshot(nil), e.snapshots...)
}

func (e *events) statuses() []TaskStatus {
	e.mu.Lock()
	defer e.mu.Unlock()
	var statuses []TaskStatus
	for _, s := range e.snapshots {
		statuses = append(statuses, s.Status)
	}
	return statuses
}
