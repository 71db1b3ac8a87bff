//go:build !(linux && amd64)

package spawn

// HardwareWatchpoints reports whether this host delivers hardware
// watchpoints; the probe exists for x86-64 Linux only, so elsewhere the
// debugger's own watchpoints are trusted.
func HardwareWatchpoints() (ok bool, why string) {
	return true, "not probed on this platform (the debugger's own watchpoints are used)"
}
