// Package analysis is what the dump tools do with an open
// postmortem.Session: run commands through the output store and its cache
// (one command, or the lines of one in order, sharing one answer's output
// budget), build the first-look report from engine output (the parsers and
// the kernel and process verdicts), take a process core's first look when it
// is opened, and find and run the drgn scripts of the configured directories.
//
// postmortem.Session.Exec always runs a command; the cache is here: the
// output of a cacheable command is stored under its postmortem.CommandKey and
// served from the store until the caller forces a re-run. Context switches
// and outputs the engine reports as errors are stored but never cached.
package analysis

import (
	"context"
	"log/slog"
	"time"

	"github.com/triage-dev/triage/internal/excerpt"
	"github.com/triage-dev/triage/internal/logfilter"
	"github.com/triage-dev/triage/internal/postmortem"
	"github.com/triage-dev/triage/internal/store"
)

// Analyst runs the dump tools' work. It keeps the excerpts of recent outputs,
// so that a cache hit costs no store read.
type Analyst struct {
	store    func(context.Context) (*store.Store, error)
	budget   func() int
	log      *slog.Logger
	excerpts *excerptCache
}

// New returns an Analyst that stores outputs in the store open returns and
// shows at most budget() bytes of output in one answer (read at each call).
func New(open func(context.Context) (*store.Store, error), budget func() int, log *slog.Logger) *Analyst {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Analyst{store: open, budget: budget, log: log, excerpts: newExcerptCache(256)}
}

// Call is what every operation on a session needs.
type Call struct {
	// Tool names the caller in the store's metadata.
	Tool    string
	Session *postmortem.Session
	// Force bypasses the cache and retries an engine whose start failed.
	Force bool
	// Timeout bounds each engine command (0: the session's default).
	Timeout time.Duration
	// Limit names that limit for a command that runs out of it
	// (postmortem.CommandError.Limit); "" names none.
	Limit string
	// Progress, when set, hears which command runs.
	Progress func(done, total float64, message string)
}

func (c Call) progress(done, total float64, message string) {
	if c.Progress != nil {
		c.Progress(done, total, message)
	}
}

// Stored is an output kept in the store and the excerpt of it an answer
// shows.
type Stored struct {
	ID         string
	TotalLines int
	Truncated  bool
	Excerpt    string
}

func stored(id string, ex excerpt.Excerpt) Stored {
	return Stored{ID: id, TotalLines: ex.TotalLines, Truncated: ex.Truncated, Excerpt: ex.Text}
}

// excerpt is text's excerpt within one answer's output budget.
func (a *Analyst) excerpt(text string) excerpt.Excerpt { return buildExcerpt(text, a.budget()) }

func buildExcerpt(text string, budget int) excerpt.Excerpt {
	b := excerpt.New(budget, important)
	b.Write([]byte(text))
	b.Flush()
	return b.Excerpt()
}

// important picks the lines an excerpt shows first.
func important(line []byte) bool { return logfilter.Classify(line).MustKeep() }
