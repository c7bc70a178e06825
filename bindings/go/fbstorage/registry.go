package fbstorage

import "sync"

// registry holds the callbacks handed to the library under integer keys. A callback whose
// entry was removed (even while its call was on the way) finds nothing and does nothing, so
// removing never frees something the library still uses: the reason observers and listeners
// use a registry rather than cgo.Handle, whose Value panics after Delete.
type registry[T any] struct {
	mu      sync.Mutex
	next    uint64
	entries map[uint64]T
}

func (r *registry[T]) insert(value T) uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.entries == nil {
		r.entries = map[uint64]T{}
	}
	r.next++
	r.entries[r.next] = value
	return r.next
}

func (r *registry[T]) get(key uint64) T {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.entries[key]
}

func (r *registry[T]) remove(key uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.entries, key)
}

func (r *registry[T]) size() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.entries)
}
