package fbstorage

// The event contract through the binding, whose observers run on the library's callback
// thread: a Pause from a PROGRESS observer takes effect before a download's end (the library
// ends a download only after its PROGRESS observers returned), and no PROGRESS follows the end.

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
)

func TestPauseFromTheFirstProgressPast256KiBOfA1MiBDownloadTakesEffect(t *testing.T) {
	for _, flavor := range flavors {
		t.Run(flavor, func(t *testing.T) {
			e := emulatorFor(t, flavor)
			s := e.storage(t)
			name := unique("held.bin")
			r, err := s.Reference(name)
			must(t, err)
			data := payload(1 << 20)
			upload(t, r, data, nil)
			var endedFirst []string
			for attempt := 0; attempt < 30; attempt++ {
				// The download's request waits 300 ms: its observers are there before any byte.
				e.addFault(t, fmt.Sprintf(`{"match": {"method": "GET", "path_prefix": "/v0/b/go-tests/o/%s"}, "times": 1, "action": {"delay_ms": 300}}`,
					url.PathEscape(name)))
				target := filepath.Join(t.TempDir(), "held.bin")
				task, err := r.WriteToFile(context.Background(), target)
				must(t, err)
				var pausingAt atomic.Int64
				_, err = task.Observe(StatusProgress, func(snapshot Snapshot) {
					if snapshot.BytesTransferred > 256*1024 && pausingAt.CompareAndSwap(0, snapshot.BytesTransferred) {
						_ = task.Pause()
					}
				})
				must(t, err)
				events := newEvents()
				events.observeAll(t, task)
				first := events.waitUntil(t, func(s Snapshot) bool {
					return s.Status == StatusPause || s.Status == StatusSuccess || s.Status == StatusFailure
				})
				if first.Status != StatusPause {
					endedFirst = append(endedFirst, fmt.Sprintf("attempt %d: %v (pausing at %d)", attempt, first.Status, pausingAt.Load()))
					continue
				}
				if at := pausingAt.Load(); at == 0 || first.BytesTransferred < at {
					t.Fatalf("paused at %d after asking at %d", first.BytesTransferred, at)
				}
				must(t, task.Resume())
				wait(t, task)
				downloaded, err := os.ReadFile(target)
				must(t, err)
				if !bytes.Equal(downloaded, data) {
					t.Fatalf("attempt %d: the downloaded file differs", attempt)
				}
			}
			if len(endedFirst) > 0 {
				t.Fatalf("ended before the pause took effect: %v", endedFirst)
			}
		})
	}
}

func TestNoProgressAfterTheEndOf300SmallUploads(t *testing.T) {
	s := emulatorFor(t, "production").storage(t)
	folder := unique("order")
	type observed struct {
		task   *Task
		events *events
	}
	var all []observed
	for i := 0; i < 300; i++ {
		r, err := s.Reference(fmt.Sprintf("%s/%d", folder, i))
		must(t, err)
		task, err := r.PutData(context.Background(), []byte("seventeen bytes!!"), nil)
		must(t, err)
		events := newEvents()
		events.observeAll(t, task)
		all = append(all, observed{task, events})
	}
	for i, o := range all {
		wait(t, o.task)
		o.events.waitFor(t, StatusSuccess)
		statuses := o.events.statuses()
		successes := 0
		for _, status := range statuses {
			if status == StatusSuccess {
				successes++
			}
		}
		if successes != 1 || statuses[len(statuses)-1] != StatusSuccess {
			t.Errorf("upload %d: events %v", i, statuses)
		}
	}
}
