package scratch

import (
	"crypto/rand"
	"os"
	"path/filepath"
	"sync"
)

// Rooms hands out new empty directories in a directory its process holds,
// the next one made ahead: making a directory costs up to a millisecond on
// some disks (ext4 in a VM), which a call that waits for one would pay
// before its program starts. A room is its taker's to remove.
type Rooms struct {
	dir    string
	mu     sync.Mutex
	next   string // made, not handed out yet
	closed bool
	making sync.WaitGroup
}

// NewRooms hands out rooms in dir.
func NewRooms(dir string) *Rooms { return &Rooms{dir: dir} }

// Take returns a new directory's path: the room made ahead (made true), or,
// when none is ready, a new name in the directory for the caller to make.
func (r *Rooms) Take() (path string, made bool) {
	r.mu.Lock()
	next := r.next
	r.next = ""
	r.mu.Unlock()
	if next != "" {
		if st, err := os.Stat(next); err == nil && st.IsDir() {
			return next, true
		}
	}
	return r.name(), false
}

// MakeAhead makes, off the caller's path, the room the next Take hands
// out, unless one is ready or the rooms are closed.
func (r *Rooms) MakeAhead() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.next != "" || r.closed {
		return
	}
	r.making.Add(1)
	go func() {
		defer r.making.Done()
		path := r.name()
		if os.Mkdir(path, 0o700) != nil {
			return
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.next != "" || r.closed {
			os.Remove(path) // another was made meanwhile, or no Take comes
			return
		}
		r.next = path
	}()
}

// Close waits for a room being made and removes the one made ahead; later
// MakeAhead calls make none. The directory itself stays.
func (r *Rooms) Close() {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	r.making.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.next != "" {
		os.Remove(r.next)
		r.next = ""
	}
}

func (r *Rooms) name() string { return filepath.Join(r.dir, "room-"+rand.Text()) }
