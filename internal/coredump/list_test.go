package coredump

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/testutil/crashers"
)

func TestListFindsCoresInRunDirs(t *testing.T) {
	procSys := t.TempDir()
	os.MkdirAll(filepath.Join(procSys, "kernel"), 0o755)
	os.WriteFile(filepath.Join(procSys, "kernel", "core_pattern"), []byte("core\n"), 0o644)
	dir := t.TempDir()
	before := time.Now().Add(-time.Second)
	res, err := spawn.Run(context.Background(), spawn.Spec{Argv: []string{crashers.Build(t, "segv")}, Dir: dir, CoreDumps: true})
	if err != nil || !res.Signaled {
		t.Fatalf("crasher: %v %+v", err, res)
	}
	real, err := Find(context.Background(), CrashFromResult(res))
	if err != nil {
		t.Skipf("this machine's core_pattern does not leave a core in the cwd: %v", err)
	}
	// A decoy that matches the name but is not a core.
	os.WriteFile(filepath.Join(dir, "core.txt"), []byte("not a core"), 0o644)
	f := &Finder{GOOS: "linux", ProcSys: procSys}
	got, err := f.List(context.Background(), ListQuery{Dirs: []string{dir, dir}, Since: before})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Path != real[0].Path || got[0].Note == "" {
		t.Fatalf("List = %+v, want only %s", got, real[0].Path)
	}
	if got, _ := f.List(context.Background(), ListQuery{Dirs: []string{dir}, Process: "other"}); len(got) != 0 {
		t.Errorf("process filter kept %+v", got)
	}
	if got, _ := f.List(context.Background(), ListQuery{Dirs: []string{dir}, Since: time.Now().Add(time.Hour)}); len(got) != 0 {
		t.Errorf("since filter kept %+v", got)
	}
}

func TestPatternGlob(t *testing.T) {
	tests := []struct {
		pattern, name string
		want          bool
	}{
		{"core", "core", true},
		{"core", "core.1234", true},
		{"core", "core.txt", false},
		{"core.%e.%p", "core.segv.77", true},
		{"core.%e.%p", "score.segv.77", false},
	}
	for _, tt := range tests {
		if got := patternGlob(tt.pattern)(tt.name); got != tt.want {
			t.Errorf("patternGlob(%q)(%q) = %v", tt.pattern, tt.name, got)
		}
	}
}
