package capture_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/capture"
	"github.com/triage-dev/triage/internal/coredump"
	"github.com/triage-dev/triage/internal/memcheck"
	"github.com/triage-dev/triage/internal/testutil/crashers"
)

// A crash seen under a runner (a test's) is judged by the run's rule, and
// its program alone is rerun: the heap overflow's write is named, with its
// block; the limit is a multiple of the time the test ran. A NULL
// dereference is not rerun, nor anything with memcheck off; a program no
// one names is said not rerun, and why.
func TestRerunCrash(t *testing.T) {
	needValgrind(t)
	st, _ := openStore(t)
	exe := crashers.Build(t, "heapoverflow")
	crash := capture.Crash{Signal: "SIGABRT", Lines: []string{"malloc(): corrupted top size"}}
	var said []string
	m := capture.Memcheck{Notify: func(s string) { said = append(said, s) }}
	mr := m.RerunCrash(context.Background(), st, crash, memcheck.Options{Argv: []string{exe}, Dir: t.TempDir()}, time.Second, nil)
	if mr == nil || mr.Result == nil || mr.Result.Outcome != memcheck.Found || mr.OutputID == "" || mr.Limit != 20*time.Second {
		t.Fatalf("rerun %+v", mr)
	}
	if want := "memcheck: heap buffer overflow: invalid write of size 1 at heapoverflow.c:7 in fill"; !strings.HasPrefix(mr.Summary(), want) {
		t.Errorf("summary %q, want %q", mr.Summary(), want)
	}
	if len(said) != 1 || !strings.Contains(said[0], " under valgrind memcheck (limit 20s): glibc reported corrupted memory") {
		t.Errorf("progress %q", said)
	}
	if mr := (capture.Memcheck{Off: true}).RerunCrash(context.Background(), st, crash, memcheck.Options{Argv: []string{exe}}, time.Second, nil); mr != nil {
		t.Errorf("memcheck off reran: %+v", mr)
	}
	null := capture.Crash{Signal: "SIGSEGV", Core: &coredump.CoreInfo{SigCode: "SEGV_MAPERR", FaultAddr: 0x10, HasFaultAddr: true},
		Frames: []coredump.Frame{{Function: "f", File: "/p/a.c", Line: 3}}, ProjectDir: "/p"}
	if mr := m.RerunCrash(context.Background(), st, null, memcheck.Options{Argv: []string{exe}}, time.Second, nil); mr != nil {
		t.Errorf("a NULL dereference reran: %+v", mr)
	}
	mr = m.RerunCrash(context.Background(), st, crash, memcheck.Options{}, time.Second, errors.New("the runner does not say which program t ran"))
	if mr == nil || mr.Result != nil || mr.Summary() != "memcheck: not rerun: the runner does not say which program t ran" {
		t.Errorf("not rerun: %+v", mr)
	}
}
