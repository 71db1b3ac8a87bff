package pipeline

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/logfilter"
	"github.com/triage-dev/triage/internal/scratch"
	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/toolchain"
)

func openStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "out.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// A coverage call plans in a directory of its own (a room of the process's
// work directory when it has one, else a scratch directory), removed after;
// keeps the report with the output, summarises the files under its
// filter, and stores the answer with the verdict.
func TestBuildOrTestKeepsCoverageAndAnswer(t *testing.T) {
	t.Run("scratch", func(t *testing.T) { testKeepsCoverageAndAnswer(t, "") })
	t.Run("work dir", func(t *testing.T) { testKeepsCoverageAndAnswer(t, t.TempDir()) })
}

func testKeepsCoverageAndAnswer(t *testing.T, work string) {
	ctx := context.Background()
	st := openStore(t)
	dir := writeFiles(t, goModule)
	var rooms *scratch.Rooms
	if work != "" {
		rooms = scratch.NewRooms(work)
	}
	var called *Called
	var progress []string
	res, err := BuildOrTest(ctx, Call{Tool: "test", Store: st, Budget: 8192, Kind: toolchain.StepTest, ProjectDir: dir,
		Options: toolchain.Options{Coverage: true}, Level: logfilter.Standard, Coverage: filepath.Join(dir, "calc"), Rooms: rooms,
		Progress: func(_ int64, msg string) { progress = append(progress, msg) },
		Answer:   func(d *Called) any { called = d; return map[string]string{"verdict": d.Result.Line} }})
	if err != nil {
		t.Fatal(err)
	}
	if work != "" {
		if filepath.Dir(called.Options.CoverageDir) != work {
			t.Errorf("coverage directory %s, want one in the work directory %s", called.Options.CoverageDir, work)
		}
		rooms.Close() // and the next call's room, made ahead, with it
		if entries, err := os.ReadDir(work); err != nil || len(entries) != 0 {
			t.Errorf("the work directory holds %v (%v) after the call; want it empty and kept", entries, err)
		}
	}
	if called == nil || called.Result.Status != Failed || called.Toolchain != string(toolchain.Go) || called.Output.ID != res.ID {
		t.Fatalf("called %+v", called)
	}
	if s := called.Coverage; s == nil || len(s.Report.Files) != 1 || s.Report.Files[0].Path != "calc/calc.go" {
		t.Fatalf("coverage summary %+v: want calc/calc.go alone (the filter, made relative)", s)
	}
	if _, err := os.Stat(called.Options.CoverageDir); !os.IsNotExist(err) {
		t.Errorf("coverage directory %s left behind: %v", called.Options.CoverageDir, err)
	}
	if f, err := st.OpenFile(ctx, res.ID, "coverage.jsonl"); err != nil {
		t.Errorf("coverage report not kept with the output: %v", err)
	} else {
		f.Close()
	}
	ans, err := st.Result(ctx, res.ID)
	var got map[string]string
	if err != nil || json.Unmarshal(ans, &got) != nil || got["verdict"] != called.Result.Line {
		t.Errorf("stored answer %s, %v", ans, err)
	}
	if len(progress) == 0 || !strings.HasPrefix(progress[0], "step 1/") {
		t.Errorf("progress %q", progress)
	}
}

// A directory with no project, and a command that cannot start, are the
// caller's mistakes.
func TestBuildOrTestUsageErrors(t *testing.T) {
	st := openStore(t)
	for _, c := range []Call{
		{Kind: toolchain.StepBuild, ProjectDir: t.TempDir()},
		{Kind: toolchain.StepBuild, ProjectDir: t.TempDir(), Argv: []string{"/nonexistent/make"}},
	} {
		c.Tool, c.Store, c.Budget = "build", st, 4096
		c.Answer = func(*Called) any { t.Error("answer rendered for a call that never ran"); return nil }
		if _, err := BuildOrTest(context.Background(), c); !fault.Is(err, fault.KindUsage) {
			t.Errorf("%+v: error %v, want a usage error", c.Argv, err)
		}
	}
}
