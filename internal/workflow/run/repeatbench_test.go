package run_test

import (
	"os/exec"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/config"
	"github.com/triage-dev/triage/internal/testutil"
	"github.com/triage-dev/triage/internal/testutil/mcptest"
	"github.com/triage-dev/triage/internal/testutil/nativeprojects"
)

// tenMillisModule is one test that takes 10 ms.
var tenMillisModule = map[string]string{
	"go.mod": "module example.com/tenms\n\ngo 1.22\n",
	"tenms_test.go": `package tenms

import (
	"testing"
	"time"
)

func TestTenMillis(t *testing.T) { time.Sleep(10 * time.Millisecond) }
`,
}

// BenchmarkGoRepeat: test with repeat: 100 of a 10 ms Go test against
// go test -count=100 itself, alternated; the target is at most
// 10% over it.
func BenchmarkGoRepeat(b *testing.B) {
	if _, err := exec.LookPath("go"); err != nil {
		b.Skip("no go")
	}
	dir := nativeprojects.Write(b, tenMillisModule)
	cfg := &config.Config{}
	cfg.Store.Path = b.TempDir() + "/t.db"
	c := mcptest.Connect(b, cfg)
	args := map[string]any{"project_dir": dir, "repeat": 100}
	var triage, goTest []time.Duration
	ours := func() {
		start := time.Now()
		if r := c.Call("test", args); r.Outcome != "ok" || r.FirstLine() != "TESTS PASSED: 100 of 100 runs" {
			b.Fatal(r.Text)
		}
		triage = append(triage, time.Since(start))
	}
	theirs := func() {
		start := time.Now()
		cmd := exec.Command("go", "test", "-count=100", "./...")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("go test: %v\n%s", err, out)
		}
		goTest = append(goTest, time.Since(start))
	}
	ours() // warm the build cache for both
	theirs()
	triage, goTest = nil, nil
	for i := 0; b.Loop(); i++ {
		if i%2 == 0 { // neither side always runs on what the other left
			ours()
			theirs()
		} else {
			theirs()
			ours()
		}
	}
	mt, mg := testutil.Median(triage), testutil.Median(goTest)
	b.ReportMetric(float64(mt.Microseconds())/1000, "triage-ms")
	b.ReportMetric(float64(mg.Microseconds())/1000, "go-ms")
	b.ReportMetric(float64(mt)/float64(mg), "ratio")
	b.ReportMetric(float64(mt-mg)*100/float64(mg), "overhead-%")
}
