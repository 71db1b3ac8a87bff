package capture

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/testutil/crashers"
	"github.com/triage-dev/triage/internal/verdict"
)

func TestSegfaultFindsCoreAndBacktrace(t *testing.T) {
	bin := crashers.Build(t, "segv")
	dir := t.TempDir()
	var out strings.Builder
	o, err := Run(context.Background(), Request{
		Spec:     spawn.Spec{Argv: []string{bin}, Dir: dir, CoreDumps: true},
		Output:   &out,
		OutputID: "o-test",
		Program:  bin,
	})
	if err != nil {
		t.Fatal(err)
	}
	v := o.Verdict
	if v.Status != verdict.StatusCrash || v.CrashType != verdict.CrashSegmentationFault || v.Signal != "SIGSEGV" {
		t.Fatalf("verdict = %+v", v)
	}
	if len(o.Artifacts) == 0 || filepath.Dir(o.Artifacts[0].Path) != dir {
		t.Fatalf("core not found in the run's cwd: artifacts %+v, no core: %s", o.Artifacts, o.NoCore)
	}
	if o.Trace == nil || v.CrashFrame == nil || v.CrashFrame.Function != "crash_here" || filepath.Base(v.CrashFrame.File) != "segv.c" || v.CrashFrame.Line != 5 {
		t.Fatalf("crash frame = %+v (trace %+v)", v.CrashFrame, o.Trace)
	}
	if !strings.Contains(v.Line, "crash_here") || !strings.Contains(v.Line, "segv.c:5") {
		t.Errorf("verdict line %q does not name the crashing function and line", v.Line)
	}
	if !hasHint(v, "dump_open") {
		t.Errorf("no dump_open hint: %+v", v.Hints)
	}
	if _, err := os.Stat(o.Artifacts[0].Path); err != nil {
		t.Errorf("core file: %v", err)
	}
}

func TestOutputOnlyCrashIsNotSuccess(t *testing.T) {
	bin := crashers.Build(t, "exit0panic")
	o, err := Run(context.Background(), Request{Spec: spawn.Spec{Argv: []string{bin}, Dir: t.TempDir(), CoreDumps: true}})
	if err != nil {
		t.Fatal(err)
	}
	if o.Result.ExitCode != 0 || o.Verdict.Status == verdict.StatusSuccess {
		t.Fatalf("exit %d, verdict %+v: a panic with exit 0 must not be a success", o.Result.ExitCode, o.Verdict)
	}
	if o.Lines == 0 || o.NoCore != "" || len(o.Artifacts) != 0 {
		t.Errorf("lines %d, no-core %q, artifacts %v", o.Lines, o.NoCore, o.Artifacts)
	}
}

func TestStartErrorIsReturned(t *testing.T) {
	_, err := Run(context.Background(), Request{Spec: spawn.Spec{Argv: []string{"/nonexistent/prog"}}})
	if !spawn.IsKind(err, spawn.KindNotFound) {
		t.Fatalf("err = %v, want a not-found start error", err)
	}
}

func hasHint(v verdict.Verdict, tool string) bool {
	for _, h := range v.Hints {
		if h.Tool == tool {
			return true
		}
	}
	return false
}

// TestOutputKeepsTheProgramsOrder: a program that writes to stdout and
// stderr is stored in the order it wrote them (one pipe, as 2>&1 gives), so
// the stored output, its last line and the verdict's "last line" are one
// and the same from run to run. With a pipe per stream the order was the
// readers': an error written last to stderr could come before stdout's
// last line, and a partial stdout line was held back behind a stderr line.
func TestOutputKeepsTheProgramsOrder(t *testing.T) {
	for _, tt := range []struct{ name, script, want, last string }{
		{"error last on stderr",
			"for i in 1 2 3 4 5 6; do echo line $i; done; echo 'error: disk full' >&2; exit 1",
			"line 1\nline 2\nline 3\nline 4\nline 5\nline 6\nerror: disk full\n", "error: disk full"},
		{"stderr inside a stdout line",
			"printf 'writing '; echo 'error: disk full' >&2; echo 'failed'; exit 1",
			"writing error: disk full\nfailed\n", "failed"},
	} {
		for i := 0; i < 20; i++ {
			var out strings.Builder
			o, err := Run(context.Background(), Request{Spec: spawn.Spec{Argv: []string{"sh", "-c", tt.script}}, Output: &out})
			if err != nil {
				t.Fatal(err)
			}
			if out.String() != tt.want {
				t.Fatalf("%s: stored %q, want the program's own order %q", tt.name, out.String(), tt.want)
			}
			if want := "FAILED (exit 1) — last line: " + tt.last; o.Verdict.Line != want {
				t.Fatalf("%s: verdict %q, want %q (the stored output's last line)", tt.name, o.Verdict.Line, want)
			}
		}
	}
}
