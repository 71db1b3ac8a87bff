package coredump

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// maxHeldCores bounds the core files a CoreWatch keeps open, and
// maxWatchedDirs the directories it watches.
const (
	maxHeldCores   = 16
	maxWatchedDirs = 64
)

// CoreWatch keeps each core written into a few directories during a run,
// so that under a core_pattern whose file name repeats (plain "core", with
// core_uses_pid 0) a crash whose core a later crash in the same directory
// replaced still leaves its own. The kernel replaces a core by unlinking
// the old file and creating a new one (do_coredump: unlink, then
// O_CREAT|O_EXCL), so a descriptor opened on the first keeps its content:
// each core file is opened as it is created (inotify), and Stop saves those
// whose name now holds another file beside it, under their pid (core →
// core.4242), where FindGroup finds them.
//
// The directories given are watched, and their subdirectories to depth
// levels (CTest runs the tests of a directory in build/tests; at most
// maxWatchedDirs in all, skipping those FindGroup skips). One goroutine
// reads the events, from WatchCores until Stop. A nil *CoreWatch (nothing
// to watch) is valid and does nothing.
type CoreWatch struct {
	f     *os.File
	dirs  map[int32]string // watch descriptor → directory
	match func(string) bool
	done  chan struct{}

	onHold func(path string) // test hook: called after each core file is opened
	exes   []string          // the run's test programs (Programs); set before Stop, read by Stop

	mu   sync.Mutex
	held []heldCore // guarded by mu until done is closed
	seen int        // core files seen written; guarded by mu until done is closed
}

// heldCore is a core file kept open, and the name it had.
type heldCore struct {
	f        *os.File
	path     string
	dev, ino uint64
}

// WatchCores watches dirs, and their subdirectories to depth levels (1:
// dirs alone), for the cores a run writes, when core_pattern can make one
// crash's core replace another's; nil otherwise (a piped or pid-named
// pattern, core_uses_pid set) or when inotify is not available.
func WatchCores(dirs []string, depth int) *CoreWatch {
	var f Finder
	return f.WatchCores(dirs, depth)
}

// WatchCores is the Finder form of WatchCores.
func (f *Finder) WatchCores(dirs []string, depth int) *CoreWatch {
	raw, err := os.ReadFile(filepath.Join(f.procSys(), "kernel", "core_pattern"))
	if err != nil {
		return nil
	}
	pat := parseCorePattern(string(raw))
	if pat.pipe || pat.raw == "" || strings.ContainsAny(pidSpecifiers(pat.raw), "pPiI") {
		return nil
	}
	if b, err := os.ReadFile(filepath.Join(f.procSys(), "kernel", "core_uses_pid")); err == nil && strings.TrimSpace(string(b)) != "0" {
		return nil
	}
	if filepath.IsAbs(pat.raw) {
		dirs, depth = []string{filepath.Dir(pat.raw)}, 1
	} else if sub := filepath.Dir(pat.raw); sub != "." {
		in := dirs
		dirs = make([]string, len(in))
		for i, d := range in {
			dirs[i] = filepath.Join(d, sub)
		}
	}
	fd, err := syscall.InotifyInit1(syscall.IN_CLOEXEC | syscall.IN_NONBLOCK)
	if err != nil {
		return nil
	}
	w := &CoreWatch{f: os.NewFile(uintptr(fd), "inotify"), dirs: map[int32]string{}, match: patternGlob(filepath.Base(pat.raw)), done: make(chan struct{}), onHold: f.onHold}
	for _, d := range watchedDirs(uniq(dirs), depth) {
		wd, err := syscall.InotifyAddWatch(fd, d, syscall.IN_CREATE|syscall.IN_CLOSE_WRITE|syscall.IN_ONLYDIR)
		if err == nil {
			w.dirs[int32(wd)] = d
		}
	}
	if len(w.dirs) == 0 {
		w.f.Close()
		return nil
	}
	go w.read()
	return w
}

// watchedDirs are dirs and their subdirectories to depth levels, breadth
// first, at most maxWatchedDirs, without those FindGroup never enters.
func watchedDirs(dirs []string, depth int) []string {
	out := slices.Clone(dirs)
	level := dirs
	for ; depth > 1 && len(out) < maxWatchedDirs; depth-- {
		var next []string
		for _, d := range level {
			entries, _ := os.ReadDir(d)
			for _, e := range entries {
				if e.IsDir() && !skipDirs[e.Name()] && !(e.Name() == "target" && fileExists(filepath.Join(d, "Cargo.toml"))) {
					next = append(next, filepath.Join(d, e.Name()))
				}
			}
		}
		out = append(out, next...)
		level = next
	}
	return uniq(out[:min(len(out), maxWatchedDirs)])
}

// pidSpecifiers is the letters of pattern's %-specifiers.
func pidSpecifiers(pattern string) string {
	var b strings.Builder
	for i := 0; i+1 < len(pattern); i++ {
		if pattern[i] == '%' {
			i++
			b.WriteByte(pattern[i])
		}
	}
	return b.String()
}

// read opens each core file as it appears, until the descriptor is closed.
func (w *CoreWatch) read() {
	defer close(w.done)
	buf := make([]byte, 64<<10)
	for {
		n, err := w.f.Read(buf)
		if err != nil {
			return
		}
		for off := 0; off+syscall.SizeofInotifyEvent <= n; {
			ev := (*syscall.InotifyEvent)(unsafe.Pointer(&buf[off]))
			name := buf[off+syscall.SizeofInotifyEvent : min(n, off+syscall.SizeofInotifyEvent+int(ev.Len))]
			off += syscall.SizeofInotifyEvent + int(ev.Len)
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			if dir, ok := w.dirs[ev.Wd]; ok && ev.Mask&syscall.IN_ISDIR == 0 && w.match(string(name)) {
				if p := filepath.Join(dir, string(name)); w.hold(p) && w.onHold != nil {
					w.onHold(p)
				}
			}
		}
	}
}

// hold opens a core file, once per file, and reports whether it was
// opened now.
func (w *CoreWatch) hold(path string) bool {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return false
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		f.Close()
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, h := range w.held {
		if h.dev == st.Dev && h.ino == st.Ino {
			f.Close()
			return false
		}
	}
	w.seen++
	if len(w.held) == maxHeldCores {
		f.Close()
		return false
	}
	w.held = append(w.held, heldCore{f: f, path: path, dev: st.Dev, ino: st.Ino})
	return true
}

// Programs names the run's test programs (absolute paths), whose cores
// Stop saves whatever their process group, as FindGroup's GroupQuery.Exes
// finds them. It returns w, and is called before Stop.
func (w *CoreWatch) Programs(exes []string) *CoreWatch {
	if w != nil {
		w.exes = exes
	}
	return w
}

// Stop ends the watch, once the run's processes are all dead, and saves
// the cores of the run that pgid leads (its group, its children in groups
// of their own, its Programs: FindGroup's rule) that a later core
// replaced: each is written beside the one that replaced it, named after
// its pid. It returns the paths written.
func (w *CoreWatch) Stop(pgid int) []string {
	if w == nil {
		return nil
	}
	w.f.Close()
	<-w.done
	var saved []string
	for _, h := range w.held {
		if p, err := h.rescue(pgid, w.exes); err == nil && p != "" {
			saved = append(saved, p)
		}
		h.f.Close()
	}
	w.held = nil
	return saved
}

// Seen is how many core files the watch saw written, once stopped.
func (w *CoreWatch) Seen() int {
	if w == nil {
		return 0
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.seen
}

// rescue copies a held core out when its name now holds another file
// (a later crash's core): "" when it need not or may not be.
func (h heldCore) rescue(pgid int, exes []string) (string, error) {
	var st syscall.Stat_t
	if err := syscall.Fstat(int(h.f.Fd()), &st); err != nil || st.Nlink > 0 {
		return "", err
	}
	var now syscall.Stat_t
	if err := syscall.Stat(h.path, &now); err != nil || now.Ino == h.ino && now.Dev == h.dev {
		return "", err // removed, not replaced: whoever removed it meant to
	}
	ci, err := OpenCore(procFD(h.f))
	if err != nil || !ci.ofRun(pgid, exes) {
		return "", err
	}
	dst := h.path + "." + itoa(ci.Pid)
	for i := 1; fileExists(dst); i++ {
		dst = h.path + "." + itoa(ci.Pid) + "-" + itoa(i)
	}
	if err := copyFile(procFD(h.f), dst); err != nil {
		if errors.Is(err, os.ErrExist) {
			return "", nil // made meanwhile, and not by us: left alone
		}
		os.Remove(dst)
		return "", err
	}
	// When it was written, not copied: the oldest core is a run's first crash.
	mtime := time.Unix(st.Mtim.Unix())
	os.Chtimes(dst, mtime, mtime)
	return dst, nil
}

// procFD is a path that opens f's file, linked or not.
func procFD(f *os.File) string { return "/proc/self/fd/" + itoa(int(f.Fd())) }
