package spawn_test

import (
	"context"
	"fmt"
	"runtime"
	"syscall"
	"testing"

	"github.com/triage-dev/triage/internal/spawn"
)

// TestPeakRSSIsTheProgramsOwn: Go starts a child sharing triage's memory
// until its exec (CLONE_VM|CLONE_VFORK), and the kernel folds that memory's
// high-water mark into the child's ru_maxrss. From a process that has been
// large, /bin/true must not be reported as large; a program that really
// uses 300 MB (more than this process ever did) is reported as at least
// that.
func TestPeakRSSIsTheProgramsOwn(t *testing.T) {
	const mb = 1 << 20
	runtime.GC() // an earlier run's ballast (-count) is reused, not added to
	ballast := make([]byte, 200*mb)
	for i := 0; i < len(ballast); i += 4096 {
		ballast[i] = 1 // resident, not merely reserved
	}
	defer runtime.KeepAlive(ballast)

	res, err := spawn.Run(context.Background(), spawn.Spec{Argv: []string{"/bin/true"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.PeakRSS >= 100*mb {
		t.Errorf("/bin/true from a 200 MB process: peak_rss %d MB, the runner's own memory", res.PeakRSS/mb)
	}

	// A figure at or below this process's own peak cannot be told from
	// it: the program must use more than that to be reported.
	var self syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &self); err != nil {
		t.Fatal(err)
	}
	want := max(300*mb, self.Maxrss*1024+64*mb)
	// dd reads /dev/zero into one buffer of that size: every page is touched.
	res, err = spawn.Run(context.Background(), spawn.Spec{Argv: []string{"dd", "if=/dev/zero", "of=/dev/null", fmt.Sprintf("bs=%d", want), "count=1"}})
	if err != nil || !res.Success() {
		t.Fatalf("dd: %v, %v", res, err)
	}
	if res.PeakRSS < want {
		t.Errorf("a program using %d MB: peak_rss %d MB, want at least that", want/mb, res.PeakRSS/mb)
	}
}
