// Package capture captures a program's run: how it ended and what it said.
//
// Run (and Start, for a background run) runs a program crash-aware: it
// starts the process through spawn with core dumps enabled, watches its
// output for crash indicators while it streams, and once it has ended finds
// the core dump (or crash report), takes a first-look backtrace of the
// crashing thread, and classifies the whole into a verdict. A run knows
// nothing of where output is stored: the caller passes a writer that
// receives the combined stream, and the id it was stored under, which hints
// then name.
//
// Open records the output of one call: the whole of it into the output
// store, a bounded excerpt (errors first) for the answer, and a line count
// for progress reports. run, build, test, the Xcode actions, sim_build_run
// and background processes all capture through it, so the lines an excerpt
// shows first and what a failed store write means are decided once, here.
//
// A capture is used in three steps:
//
//	c, err := capture.Open(ctx, st, store.Meta{Tool: "run", Argv: argv}, capture.Options{Budget: n})
//	// the producer writes to c (and, with Options.Filtered, to c.Filtered())
//	res := c.Finish(ctx, store.Final{Status: ..., VerdictLine: ...}) // or c.Abort()
//
// A call whose answer the store keeps with the output (run, build, test,
// the Xcode builds, sim_build_run: the web page shows it) renders that
// answer from what Close kept, and hands it to FinishWith, which stores it
// with the verdict in one write:
//
//	answer := render(c.Close())
//	res := c.FinishWith(ctx, store.Final{...}, answer.Output)
//
// While it runs, a capture keeps its latest progress line in the store
// (what Options.Progress returns, or RecordProgress), for the web page.
//
// # A store write that fails
//
// Writes to a capture never fail: when the store cannot take the output (a
// full disk), the excerpt and the line count go on, the store keeps the
// lines committed before the failure, and Finish returns the failure in
// Result.Err. The producer's verdict stands — a crash is still a crash —
// but the call could not do all its work: its outcome is an error, and its
// text ends with Result.Note, which says how many lines were kept and where.
package capture

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/triage-dev/triage/internal/excerpt"
	"github.com/triage-dev/triage/internal/jsoncut"
	"github.com/triage-dev/triage/internal/logfilter"
	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/tick"
)

// Important reports whether an excerpt shows a line first: compiler and
// linker errors, failures, crash and sanitizer lines — the lines the log
// filter never drops.
func Important(line []byte) bool { return logfilter.Classify(line).MustKeep() }

// Options configure a capture.
type Options struct {
	// Budget bounds the excerpt, in bytes (excerpt.MinBudget when less).
	Budget int
	// Filtered makes the excerpt out of what is written to Filtered (a
	// build's filtered log) rather than out of the output itself.
	Filtered bool
	// Progress, when set, is called every Interval from another goroutine
	// while the capture is open, with the lines written so far; the line
	// it returns (if not empty) is kept as the output's progress. It is not
	// called after Close, Finish or Abort has returned.
	Progress func(Progress) string
	// Interval is the period of Progress; a second when not positive.
	Interval time.Duration
}

// Progress is a capture in progress.
type Progress struct {
	Lines   int64         // lines written so far
	Elapsed time.Duration // since Open
}

// Capture is one output on its way into the store. Write and Filtered's
// writer are for one producer goroutine at a time; Commit may be called
// from any goroutine while it writes.
type Capture struct {
	ex       *excerpt.Builder
	filtered bool
	lines    atomic.Int64
	start    time.Time
	ticker   *tick.Ticker // nil without Options.Progress

	mu      sync.Mutex // guards w and changed against Commit and RecordProgress from other goroutines
	w       *store.Writer
	changed chan struct{} // closed (and replaced) when committed lines grow
	closed  bool          // Close was called
	done    bool
	ctx     context.Context // Open's, not cancelled with it: for progress lines
}

// Open creates the output in st, described by meta.
func Open(ctx context.Context, st *store.Store, meta store.Meta, opts Options) (*Capture, error) {
	w, err := st.Create(ctx, meta)
	if err != nil {
		return nil, err
	}
	c := &Capture{w: w, ex: excerpt.New(opts.Budget, Important), filtered: opts.Filtered, start: time.Now(), ctx: context.WithoutCancel(ctx)}
	if opts.Progress != nil {
		report := opts.Progress
		c.ticker = tick.Start(ctx, opts.Interval, func() {
			c.RecordProgress(report(Progress{Lines: c.lines.Load(), Elapsed: time.Since(c.start)}))
		})
	}
	return c, nil
}

// ID is the output's id in the store.
func (c *Capture) ID() string { return c.w.ID() }

// PutFile keeps a file with the output (store.Writer.PutFile). It may run
// while the capture closes.
func (c *Capture) PutFile(name string, write func(io.Writer) error) error {
	return c.w.PutFile(name, write)
}

// ReserveFile makes room, while the producer runs, for a file PutFile
// will keep (store.Writer.ReserveFile). It is called before the producer
// ends.
func (c *Capture) ReserveFile(name string) { c.w.ReserveFile(name) }

// Write records p: into the store, the line count and, unless the excerpt
// is filtered, the excerpt. It never fails; see the package documentation.
func (c *Capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	_, _ = c.w.Write(p) // a failure is sticky in the writer and reported by Finish
	c.mu.Unlock()
	c.lines.Add(int64(bytes.Count(p, []byte{'\n'})))
	if !c.filtered {
		c.ex.Write(p)
	}
	return len(p), nil
}

// Filtered is where the excerpt's lines are written when Options.Filtered
// is set; without it, what is written there is dropped.
func (c *Capture) Filtered() io.Writer {
	if !c.filtered {
		return io.Discard
	}
	return c.ex
}

// Commit makes the complete lines written so far readable from the store
// (as process_output reads a running program's output) and returns a
// channel closed at the next commit that adds lines, or at the end.
func (c *Capture) Commit() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.changed == nil {
		c.changed = make(chan struct{})
	}
	if !c.done {
		before := c.w.Lines()
		_ = c.w.Flush() // a failure is reported by Finish
		if c.w.Lines() > before {
			close(c.changed)
			c.changed = make(chan struct{})
		}
	}
	return c.changed
}

// Result is what a finished capture kept.
type Result struct {
	ID string
	// Lines is the number of lines in the store: all of the output, unless
	// Err is set.
	Lines int
	// Excerpt is the bounded view the answer shows.
	Excerpt excerpt.Excerpt
	// Err is why the output is not stored whole, nil when it is.
	Err error
}

// Truncated reports whether the excerpt leaves out some of the lines of
// the log it shows, which had lines lines: it was cut to its budget, or it
// shows fewer (a filtered excerpt whose filter dropped some).
func (r Result) Truncated(lines int64) bool {
	return r.Excerpt.Truncated || int64(r.Excerpt.TotalLines) < lines
}

// Note is the text a result ends with when its output could not be stored
// whole, "" when it was.
func (r Result) Note() string {
	if r.Err == nil {
		return ""
	}
	first := fmt.Sprintf("its first %d lines are", r.Lines)
	if r.Lines == 1 {
		first = "its first line is"
	}
	return fmt.Sprintf("\nOUTPUT NOT STORED WHOLE: only %s in %s: %v\n", first, r.ID, r.Err)
}

// RecordProgress keeps line as the output's latest progress while it
// runs ("" is ignored). Progress is advisory: a failure to store it is
// dropped, and nothing is kept once the capture is closed.
func (c *Capture) RecordProgress(line string) {
	if line == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.closed && !c.done {
		_ = c.w.Progress(c.ctx, line)
	}
}

// Close ends the output once the producer is done: progress stops, and
// the whole output is committed, so the Result it returns (lines, excerpt)
// is what the call's answer is rendered from before FinishWith.
func (c *Capture) Close() Result {
	c.stopTicker()
	c.ex.Flush()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	err := c.w.Close()
	return Result{ID: c.w.ID(), Lines: c.w.Lines(), Excerpt: c.ex.Excerpt(), Err: err}
}

// Finish ends the capture once the producer is done: it stores the rest of
// the output with how the producer ended. It is not cancelled with ctx, so
// that a cancelled call still records what it got.
func (c *Capture) Finish(ctx context.Context, f store.Final) Result {
	return c.FinishWith(ctx, f, nil)
}

// FinishWith is Finish that also keeps answer, the call's structured
// result, with the output and its verdict (nil keeps none): encoded as
// JSON and cut to store.MaxResultBytes by the rule that bounds a tool's
// structured answer (internal/jsoncut).
func (c *Capture) FinishWith(ctx context.Context, f store.Final, answer any) Result {
	c.Close()
	if answer != nil {
		if b, err := json.Marshal(answer); err == nil {
			f.Result = jsoncut.Bound(b, store.MaxResultBytes)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	err := c.w.Finish(context.WithoutCancel(ctx), f)
	c.end()
	return Result{ID: c.w.ID(), Lines: c.w.Lines(), Excerpt: c.ex.Excerpt(), Err: err}
}

// Abort ends a capture whose producer never ran (it could not be started):
// the output is kept as incomplete.
func (c *Capture) Abort() { c.AbortWith("") }

// AbortWith is Abort that keeps why (the error the call answers) as the
// entry's verdict line.
func (c *Capture) AbortWith(why string) {
	c.stopTicker()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.w.AbortWith(why)
	c.end()
}

func (c *Capture) stopTicker() {
	if c.ticker != nil {
		c.ticker.Stop()
	}
}

// end wakes those waiting on Commit's channel, and leaves it closed for
// later calls; c.mu is held.
func (c *Capture) end() {
	if c.done {
		return
	}
	c.done = true
	if c.changed == nil {
		c.changed = make(chan struct{})
	}
	close(c.changed)
}
