package capture

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/memcheck"
	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/testutil/crashers"
)

// A rerun that its limit ends says so: no verdict, "timed out", and the
// XML valgrind wrote until then kept with the status timeout. (The limit
// is a second here; a crash's is at least memcheckFloor.)
func TestMemcheckRerunTimesOut(t *testing.T) {
	if _, err := exec.LookPath("valgrind"); err != nil {
		t.Skip("valgrind not installed")
	}
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "out.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	mr := &MemcheckRun{Why: "test", Limit: time.Second}
	err = mr.run(ctx, st, memcheck.Options{Argv: []string{crashers.Build(t, "sleeper"), "60"}, Dir: t.TempDir(), Timeout: mr.Limit})
	if err != nil || mr.Result == nil || mr.Result.Outcome != memcheck.Incomplete {
		t.Fatalf("rerun %+v, %v", mr, err)
	}
	if s := mr.Summary(); !strings.HasPrefix(s, "memcheck: no verdict: timed out after 1s before valgrind finished the program") {
		t.Errorf("summary %q", s)
	}
	if e, err := st.Info(ctx, mr.OutputID); err != nil || e.Status != "timeout" || e.Tool != "memcheck" {
		t.Errorf("XML entry %+v, %v", e, err)
	}
}
