package main

import (
	"os"
	"strconv"
	"syscall"
	"unsafe"
)

// terminalWidth is the number of columns of the terminal f, else $COLUMNS,
// else 80.
func terminalWidth(f *os.File) int {
	var ws struct{ row, col, x, y uint16 }
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), uintptr(syscall.TIOCGWINSZ), uintptr(unsafe.Pointer(&ws)))
	if errno == 0 && ws.col > 0 {
		return int(ws.col)
	}
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	return 80
}
