package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/testreport"
)

// Bounds of the reruns that name the test that ended a cargo test binary.
const (
	maxReruns     = 2                // cut-short binaries rerun per test step
	rerunLimit    = 60 * time.Second // one rerun, within the run's own deadline
	maxRerunSkips = 10000            // reported tests skipped by name
	rerunTail     = 64 << 10         // output kept to read the culprit from
)

// rerunCutShort reruns, for each cargo test binary cut short with no test
// named, the tests it did not report, one at a time, to name the one that
// ends it (see culprit.go). The rerun goes into the raw and filtered logs
// after a header, so that the log read later says the same. Only a run of
// every test (no filter) is rerun: the unreported tests are then the
// binary's tests less the reported ones.
func (res *Result) rerunCutShort(ctx context.Context, p *pipeline, sr StepResult, rep *testreport.Report) {
	if rep == nil || rep.Format != testreport.FormatCargo || sr.Step.Filter != "" || sr.Outcome.Result.TimedOut || sr.Outcome.Result.Cancelled {
		return
	}
	reruns := 0
	for _, cs := range rep.CutShort {
		if cs.Test != "" || cs.Binary == "" || reruns == maxReruns || ctx.Err() != nil {
			continue
		}
		bin := cs.Binary
		if !filepath.IsAbs(bin) {
			bin = filepath.Join(sr.Step.Dir, bin)
		}
		if _, err := os.Stat(bin); err != nil {
			continue
		}
		var skips []string
		for _, c := range rep.Cases {
			if c.Suite == cs.Suite {
				skips = append(skips, "--skip", c.Name)
			}
		}
		if len(skips)/2 > maxRerunSkips {
			continue
		}
		reruns++
		if name := rerunBinary(ctx, p, sr, cs.Suite, bin, skips); name != "" {
			rep.NameCutShort(cs.Suite, name, testreport.RerunWhy)
		}
	}
}

// rerunBinary runs bin's tests but the skipped ones on one thread, its
// output streaming through p, and returns the test it ended on.
func rerunBinary(ctx context.Context, p *pipeline, sr StepResult, suite, bin string, skips []string) string {
	argv := append([]string{bin, "--exact", "--test-threads=1"}, skips...)
	header := fmt.Sprintf("\n%s\n$ %s --exact --test-threads=1 (skipping the %d tests reported)\n",
		testreport.RerunHeader(suite), bin, len(skips)/2)
	tail := &tailBuffer{max: rerunTail}
	out := io.MultiWriter(p, tail)
	io.WriteString(out, header)
	timeout := rerunLimit
	if dl, ok := ctx.Deadline(); ok {
		timeout = min(timeout, time.Until(dl))
	}
	r, err := spawn.Run(ctx, spawn.Spec{Argv: argv, Dir: sr.Step.Dir, Env: sr.Step.Env, Timeout: max(timeout, time.Millisecond),
		MergeStderr: true, Stdout: out})
	switch {
	case err != nil:
		io.WriteString(out, "\n"+testreport.RerunStopped("it could not start: "+err.Error())+"\n")
		return ""
	case r.TimedOut || r.Cancelled:
		io.WriteString(out, "\n"+testreport.RerunStopped(fmt.Sprintf("stopped after %s", r.Duration.Round(time.Second)))+"\n")
		return ""
	}
	io.WriteString(out, "\n")
	_, name, _ := testreport.ReadRerun(bytes.NewReader(append([]byte(header), tail.bytes()...)))
	return name
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > 2*t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) bytes() []byte {
	if len(t.b) > t.max {
		return t.b[len(t.b)-t.max:]
	}
	return t.b
}
