package capture

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/triage-dev/triage/internal/hang"
	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/textclip"
	"github.com/triage-dev/triage/internal/verdict"
)

// hangWatch takes the stacks of a run that spawn is about to kill as hung
// (a timeout, or a Stop whose SIGTERM was ignored), through internal/hang.
// The debuggers' output goes into the run's own output (so the store has
// every stack); a Go program's goroutine dump is already there, and the tap
// keeps it from the moment of capture for parsing. A run that ends on its
// own, or is cancelled, captures nothing and pays an atomic load per write.
type hangWatch struct {
	tap *hang.Tap
	out io.Writer // the run's combined output

	mu     sync.Mutex
	report *hang.Report
	reason spawn.HangReason
}

func newHangWatch(out io.Writer) *hangWatch {
	return &hangWatch{tap: hang.NewTap(0), out: out}
}

// onHang is the spawn.Spec.OnHang hook.
func (w *hangWatch) onHang(ctx context.Context, h spawn.Hang) {
	if h.Reason == spawn.HangStopped {
		// A stop waits for these: a few seconds, not a timeout's twenty.
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, StopStacksLimit)
		defer cancel()
	}
	w.tap.Arm()
	rep := hang.Capture(ctx, h.Pgid, hang.Options{})
	if rep.Text != "" {
		io.WriteString(w.out, rep.Text)
	}
	w.mu.Lock()
	w.report, w.reason = rep, h.Reason
	w.mu.Unlock()
}

// conclude reads the goroutine dumps, once the output is complete, and
// picks where the program was stuck (no test name: pipeline knows it and
// analyses again).
func (w *hangWatch) conclude() (*hang.Report, spawn.HangReason) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.report == nil {
		return nil, ""
	}
	w.report.AddGoDump(w.tap.Bytes())
	w.report.Analyze("")
	return w.report, w.reason
}

// hangEvidence summarises a capture for the verdict's evidence.
func hangEvidence(rep *hang.Report, outputID string) verdict.Evidence {
	ev := verdict.Evidence{Kind: "stacks"}
	var parts []string
	if p := hang.Phrase(rep.Stuck); p != "" {
		parts = append(parts, "stuck "+p)
	}
	if rep.TotalStacks > 0 {
		where := "the output"
		if outputID != "" {
			where = outputID
		}
		parts = append(parts, fmt.Sprintf("%s taken in %s, all in %s", textclip.Count(rep.TotalStacks, "stack"), rep.Duration.Round(1e6), where))
	}
	parts = append(parts, rep.Notes...)
	ev.Summary = strings.Join(parts, "; ")
	return ev
}

// withHang puts where a hung run was stuck into its verdict line:
//
//	TIMED OUT after 10s in main.main, blocked in chan receive at main.go:7 — process group killed
//	TIMED OUT after 10s, deadlocked: one blocked in pthread_mutex_lock at abba.c:8; ... — process group killed
//	INTERRUPTED after 3.2s — process group stopped; it ignored SIGTERM, in main.main, running at main.go:9
func withHang(line string, rep *hang.Report, reason spawn.HangReason) string {
	phrase := hang.Phrase(rep.Stuck)
	if phrase == "" {
		if len(rep.Notes) > 0 {
			return line + "; stacks not taken: " + rep.Notes[0]
		}
		return line
	}
	switch reason {
	case spawn.HangIgnoredTerm:
		return line + "; it ignored SIGTERM, " + phrase
	case spawn.HangStopped:
		return line + "; it was stuck: " + phrase
	}
	return InsertStuck(line, phrase)
}

// InsertStuck puts a stuck phrase after the head of a "TIMED OUT after
// 10s — ..." line.
func InsertStuck(line, phrase string) string {
	head, rest, found := strings.Cut(line, " — ")
	sep := ", "
	if strings.HasPrefix(phrase, "in ") {
		sep = " "
	}
	head += sep + phrase
	if found {
		return head + " — " + rest
	}
	return head
}
