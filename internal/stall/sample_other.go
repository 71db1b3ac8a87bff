//go:build !linux || !(amd64 || arm64)

package stall

// Supported is false: without /proc's syscalls (or with a layout of its
// arguments not read here) a group cannot be seen blocked.
const Supported = false

// Group knows nothing here.
func Group(int) []Thread { return nil }
