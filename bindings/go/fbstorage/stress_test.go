package fbstorage

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// 16 concurrent uploads while other goroutines add and remove observers (some removing
// themselves from their own call), half the task handles dropped at once: every upload lands
// intact and no observer is left in the registry once the storage is closed.
func TestStressSixteenUploadsWithObserversChurning(t *testing.T) {
	s, folder := emulatorFor(t, "production").slowStorage(t, "stress", 20)
	before := observers.size()
	sizes := make(chan [2]int64, 16)
	var calls atomic.Int64
	var kept []*Task
	for i := 0; i < 16; i++ {
		i := i
		r, _ := s.Reference(fmt.Sprintf("%s/%d", folder, i))
		task, err := r.PutData(background, payload(smallChunk*3+i*1000), nil)
		must(t, err)
		_, err = task.Observe(StatusSuccess, func(last Snapshot) { sizes <- [2]int64{int64(i), last.Metadata.Size} })
		must(t, err)
		own := make(chan ObserverID, 1)
		id, err := task.Observe(StatusProgress, func(Snapshot) {
			if calls.Add(1)%2 == 0 {
				select {
				case me := <-own:
					expect(t, task.RemoveObserver(me))
				default:
				}
			}
		})
		must(t, err)
		own <- id
		if i%2 == 0 {
			kept = append(kept, task)
		} // odd tasks: the handle is dropped here, the upload goes on
	}
	runtime.GC()

	stop := make(chan struct{})
	var churners sync.WaitGroup
	var rounds atomic.Int64
	for n := 0; n < 4; n++ {
		churners.Add(1)
		go func(n int) {
			defer churners.Done()
			for round := 0; ; round++ {
				select {
				case <-stop:
					return
				default:
				}
				for _, task := range kept {
					status := []TaskStatus{StatusProgress, StatusPause, StatusResume}[(round+n)%3]
					id, err := task.Observe(status, func(Snapshot) {})
					if err == nil && id != 0 {
						expect(t, task.RemoveObserver(id))
					}
				}
				rounds.Add(1)
			}
		}(n)
	}
	var got [][2]int64
	for len(got) < 16 {
		got = append(got, <-sizes)
	}
	close(stop)
	churners.Wait()
	sort.Slice(got, func(a, b int) bool { return got[a][0] < got[b][0] })
	for i, entry := range got {
		if entry != [2]int64{int64(i), int64(smallChunk*3 + i*1000)} {
			t.Fatalf("upload %d: %v", i, entry)
		}
	}
	if rounds.Load() < 4 || calls.Load() == 0 {
		t.Fatalf("rounds %d, calls %d", rounds.Load(), calls.Load())
	}
	for _, i := range []int{0, 7, 15} {
		r, _ := s.Reference(fmt.Sprintf("%s/%d", folder, i))
		data, err := r.Data(background, math.MaxInt64)
		must(t, err)
		if !bytes.Equal(data, payload(smallChunk*3+i*1000)) {
			t.Fatalf("object %d differs", i)
		}
	}
	kept = nil
	runtime.GC()
	s.Close() // returns once no callback runs or will run
	if after := observers.size(); after != before {
		t.Fatalf("%d observers left in the registry", after-before)
	}
}

// Many goroutines share one storage and one folder reference.
func TestOneStorageUsedFromManyGoroutines(t *testing.T) {
	s := emulatorFor(t, "production").storage(t)
	folder, _ := s.Reference(unique("goroutines"))
	var group sync.WaitGroup
	for i := 0; i < 8; i++ {
		group.Add(1)
		go func(i int) {
			defer group.Done()
			r, err := folder.Child(fmt.Sprint(i))
			expect(t, err)
			data := payload(1000 + i)
			task, err := r.PutData(background, data, nil)
			expect(t, err)
			_, err = task.Wait(background)
			expect(t, err)
			stored, err := r.Data(background, 10000)
			expect(t, err)
			if !bytes.Equal(stored, data) {
				t.Errorf("object %d differs", i)
			}
		}(i)
	}
	group.Wait()
	all, err := folder.ListAll(background)
	must(t, err)
	if len(all.Items) != 8 {
		t.Fatalf("%d items", len(all.Items))
	}
}

// Eight streams at once, up and down, some stopped early: every byte intact, and no sink or
// source left in the registries once each is closed.
func TestStressConcurrentStreams(t *testing.T) {
	s := emulatorFor(t, "production").storage(t)
	must(t, s.SetUploadChunkSize(smallChunk))
	data := payload(2*streamBuffer + 12345)
	source := uploaded(t, s, "stress/streams.bin", data)
	var group sync.WaitGroup
	for i := 0; i < 8; i++ {
		group.Add(1)
		go func(i int) {
			defer group.Done()
			switch i % 4 {
			case 0, 1: // read to the end in small reads (the download pauses when they fall behind)
				reader, err := source.NewReader(background)
				expect(t, err)
				var got bytes.Buffer
				_, err = io.CopyBuffer(&got, struct{ io.Reader }{reader}, make([]byte, 4096))
				expect(t, err)
				expect(t, reader.Close())
				if !bytes.Equal(got.Bytes(), data) {
					t.Errorf("reader %d: %d bytes", i, got.Len())
				}
			case 2: // closed after a part
				reader, err := source.NewReader(background)
				expect(t, err)
				_, err = io.CopyN(io.Discard, reader, int64(streamBuffer/2+i))
				expect(t, err)
				expect(t, reader.Close())
			case 3: // written; every other one aborted
				r, _ := s.Reference(unique("stress/written.bin"))
				writer, err := r.NewWriter(background, nil)
				expect(t, err)
				_, err = writer.Write(data[:3*smallChunk+i])
				expect(t, err)
				if i == 3 {
					writer.Abort(nil)
				} else if err := writer.Close(); err != nil || writer.Metadata().Size != int64(3*smallChunk+i) {
					t.Errorf("writer %d: %v", i, err)
				}
			}
		}(i)
	}
	group.Wait()
	// Streams nobody closed (PutReader's) leave the registries right after their task's end.
	for deadline := time.Now().Add(10 * time.Second); readers.size()+writers.size() > 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("left: %d sinks, %d sources", readers.size(), writers.size())
		}
	}
}
