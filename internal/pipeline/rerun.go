package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/triage-dev/triage/internal/remote"
	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/testreport"
	"github.com/triage-dev/triage/internal/toolchain"
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
// ends it (see culprit.go); on the step's host when conn is set. The rerun
// goes into the raw and filtered logs after a header, so that the log read
// later says the same. Only a run of every test (no filter) is rerun: the
// unreported tests are then the binary's tests less the reported ones.
func (res *Result) rerunCutShort(ctx context.Context, conn *remote.Conn, p *pipeline, sr StepResult, rep *testreport.Report) {
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
		if _, err := os.Stat(bin); err != nil && conn == nil {
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
		if name := rerunBinary(ctx, conn, p, sr, cs.Suite, bin, skips); name != "" {
			rep.NameCutShort(cs.Suite, name, testreport.RerunWhy)
		}
	}
}

// rerunBinary runs bin's tests but the skipped ones on one thread, its
// output streaming through p, and returns the test it ended on.
func rerunBinary(ctx context.Context, conn *remote.Conn, p *pipeline, sr StepResult, suite, bin string, skips []string) string {
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
	run := runHere
	if conn != nil {
		run = runOn(conn)
	}
	if stopped := run(ctx, argv, sr.Step, max(timeout, time.Millisecond), out); stopped != "" {
		io.WriteString(out, "\n"+testreport.RerunStopped(stopped)+"\n")
		return ""
	}
	io.WriteString(out, "\n")
	_, name, _ := testreport.ReadRerun(bytes.NewReader(append([]byte(header), tail.bytes()...)))
	return name
}

// A rerunner runs argv in step's directory and environment, its stdout
// and stderr to out, and says why it was stopped ("" when it ran to its
// end, whatever its status).
type rerunner func(ctx context.Context, argv []string, step toolchain.Step, timeout time.Duration, out io.Writer) (stopped string)

func runHere(ctx context.Context, argv []string, step toolchain.Step, timeout time.Duration, out io.Writer) string {
	r, err := spawn.Run(ctx, spawn.Spec{Argv: argv, Dir: step.Dir, Env: step.Env, Timeout: timeout, MergeStderr: true, Stdout: out})
	switch {
	case err != nil:
		return "it could not start: " + err.Error()
	case r.TimedOut || r.Cancelled:
		return fmt.Sprintf("stopped after %s", r.Duration.Round(time.Second))
	}
	return ""
}

// runOn is runHere on conn's host, through its job agent.
func runOn(conn *remote.Conn) rerunner {
	return func(ctx context.Context, argv []string, step toolchain.Step, timeout time.Duration, out io.Writer) string {
		p, err := conn.Start(ctx, remote.Job{Argv: argv, Dir: step.Dir, Env: step.Env, Output: out, Timeout: timeout})
		if err != nil {
			return "it could not start: " + err.Error()
		}
		end := p.Wait()
		switch {
		case end.Lost != nil:
			return "the connection to " + conn.Host + " was lost: " + end.Lost.Error()
		case end.TimedOut || end.Cancelled:
			return fmt.Sprintf("stopped after %s", end.Duration.Round(time.Second))
		}
		return ""
	}
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
