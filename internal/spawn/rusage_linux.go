package spawn

import "syscall"

// maxRSSBytes is the peak resident set in a child's wait4 rusage
// (ru_maxrss, which Linux reports in KiB), or 0 when it cannot be told from
// triage's own. Go starts a child with clone(CLONE_VM|CLONE_VFORK): until
// its exec the child runs in triage's address space, and the exec folds that
// space's high-water mark into the child's ru_maxrss, so a small program run
// by a large server reports the server's memory. Triage's own peak now
// (getrusage RUSAGE_SELF) is at least what it was at the spawn: a figure
// above it is the child's own; one at or below it may be triage's, and a
// wrong figure is worse than none.
func maxRSSBytes(ru *syscall.Rusage) int64 {
	var self syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &self); err != nil || ru.Maxrss <= self.Maxrss {
		return 0
	}
	return ru.Maxrss * 1024
}
