package spawn

import "syscall"

// maxRSSBytes converts ru_maxrss, which macOS reports in bytes.
func maxRSSBytes(ru *syscall.Rusage) int64 { return ru.Maxrss }
