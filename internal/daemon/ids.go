package daemon

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// NextNumber returns the next number of kind ("p" for background
// processes, "dbg" for debug sessions) from a count kept in the runtime
// directory (ids-KIND, under flock) and shared by all the user's daemons:
// the ids they hand out (p7, dbg-3) then name one thing across them, where
// a count per daemon gave every daemon its own p1.
func NextNumber(kind string) (int, error) {
	dir, err := runtimeDir()
	if err != nil {
		return 0, err
	}
	f, err := os.OpenFile(filepath.Join(dir, "ids-"+kind), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return 0, fmt.Errorf("id count: %w", err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return 0, fmt.Errorf("id count: %w", err)
	}
	defer syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	b := make([]byte, 32)
	k, _ := f.ReadAt(b, 0)
	n, _ := strconv.Atoi(strings.TrimSpace(string(b[:k])))
	n++
	if err := f.Truncate(0); err != nil {
		return 0, fmt.Errorf("id count: %w", err)
	}
	if _, err := f.WriteAt([]byte(strconv.Itoa(n)+"\n"), 0); err != nil {
		return 0, fmt.Errorf("id count: %w", err)
	}
	return n, nil
}

// Numbers returns a source of kind's numbers for a daemon: NextNumber,
// falling back on a count of its own (after the last shared number it
// drew) should the shared count fail, so that ids never repeat within it.
func Numbers(kind string) func() int {
	var (
		mu   sync.Mutex
		last int
	)
	return func() int {
		mu.Lock()
		defer mu.Unlock()
		if n, err := NextNumber(kind); err == nil && n > last {
			last = n
		} else {
			last++
		}
		return last
	}
}
