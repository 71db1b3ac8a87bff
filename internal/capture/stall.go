package capture

import (
	"context"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/triage-dev/triage/internal/hang"
	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/stall"
	"github.com/triage-dev/triage/internal/verdict"
)

// stallWatch is a local run's watch for no progress (internal/stall): it
// counts the output as it is read, verbatim (a progress line with no '\n'
// counts), and keeps what the watch found.
type stallWatch struct {
	limit time.Duration
	out   atomic.Int64

	mu    sync.Mutex
	found *stall.Finding
}

// watchStalls sets spec up to end the run early when it stalls for limit.
func watchStalls(spec *spawn.Spec, limit time.Duration) *stallWatch {
	sw := &stallWatch{limit: limit}
	spec.Stdout = &counted{n: &sw.out, w: spec.Stdout}
	spec.Stall = sw.watch
	return sw
}

// watch is the spawn.Spec.Stall hook.
func (sw *stallWatch) watch(ctx context.Context, pgid int) bool {
	f, ok := stall.Watch(ctx, pgid, stall.Options{Limit: sw.limit, Output: sw.out.Load})
	if ok {
		sw.mu.Lock()
		sw.found = &f
		sw.mu.Unlock()
	}
	return ok
}

// finding is what the watch found, nil when it found nothing.
func (sw *stallWatch) finding() *stall.Finding {
	if sw == nil {
		return nil
	}
	sw.mu.Lock()
	defer sw.mu.Unlock()
	return sw.found
}

// counted counts what passes to w (nil: nowhere).
type counted struct {
	n *atomic.Int64
	w io.Writer
}

func (c *counted) Write(p []byte) (int, error) {
	c.n.Add(int64(len(p)))
	if c.w == nil {
		return len(p), nil
	}
	return c.w.Write(p)
}

// Stalled is a run the stall watch ended early (Request.Stall): how long
// nothing moved and what its threads waited in; for callers that word
// their own verdict line (a build or test step's), Head.
type Stalled struct {
	Limit time.Duration
	// Finding is empty when the watch's finding was not kept.
	stall.Finding
}

// Head is the head of a stalled run's verdict line.
func (s *Stalled) Head() string { return "HUNG: no progress for " + s.Limit.String() }

// stalled is what the watch found when it ended the run.
func (sw *stallWatch) stalled() *Stalled {
	st := &Stalled{Limit: sw.limit}
	if f := sw.finding(); f != nil {
		st.Finding = *f
	}
	return st
}

// serverNote is said of a run stalled waiting for a connection.
const serverNote = "waiting for a connection — a server? process_start runs it in the background"

// stalledVerdict makes a stalled run's verdict its own, apart from a
// timeout's: the line says HUNG, how long nothing moved and where the
// stacks (else the watch) say it was stuck; the hint to raise timeout_s
// becomes one to raise stall_s.
//
//	HUNG: no progress for 30s; in main.main, blocked in chan receive at main.go:7 — process group killed
//	HUNG: no progress for 30s; waiting for input on stdin, in main, blocked in read at cat.c:9 — process group killed
//	HUNG: no progress for 30s; in main, blocked in accept at srv.c:20 (waiting for a connection — a server? process_start runs it in the background) — process group killed
func stalledVerdict(v *verdict.Verdict, st *Stalled, rep *hang.Report) {
	seen := len(st.Threads) > 0
	var where []string
	if st.Stdin() {
		where = append(where, st.Phrase())
	}
	switch {
	case rep != nil && hang.Phrase(rep.Stuck) != "":
		where = append(where, hang.Phrase(rep.Stuck))
	case seen && !st.Stdin():
		where = append(where, st.Phrase())
	}
	line := st.Head()
	if len(where) > 0 {
		line += "; " + strings.Join(where, ", ")
	}
	if st.Listens() {
		line += " (" + serverNote + ")"
	}
	line += " — process group killed"
	if rep != nil && hang.Phrase(rep.Stuck) == "" && len(rep.Notes) > 0 {
		line += "; stacks not taken: " + rep.Notes[0]
	}
	v.Line = line
	if seen {
		v.Evidence = append(v.Evidence, verdict.Evidence{Kind: "stall",
			Summary: "no output, no CPU time and every thread blocked for " + st.Limit.String() + ": " + st.Waits()})
	}
	for i, h := range v.Hints {
		if strings.HasSuffix(h.Text, ", or raise timeout_s") {
			v.Hints[i].Text = strings.TrimSuffix(h.Text, "timeout_s") + "stall_s (0 turns the stall watch off)"
		}
	}
}
