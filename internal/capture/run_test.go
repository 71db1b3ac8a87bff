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
