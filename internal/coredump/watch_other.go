//go:build !linux

package coredump

// CoreWatch keeps the cores a run writes; only Linux has one (inotify and
// core_pattern), elsewhere a nil *CoreWatch does nothing.
type CoreWatch struct{}

// WatchCores is nil where cores are not files that core_pattern names.
func WatchCores(dirs []string, depth int) *CoreWatch { return nil }

// WatchCores is the Finder form of WatchCores.
func (f *Finder) WatchCores(dirs []string, depth int) *CoreWatch { return nil }

// Seen is 0.
func (w *CoreWatch) Seen() int { return 0 }

// Stop does nothing.
func (w *CoreWatch) Stop(pgid int) []string { return nil }

// Programs does nothing.
func (w *CoreWatch) Programs(exes []string) *CoreWatch { return w }
