package observe

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/triage-dev/triage/internal/coredump"
	"github.com/triage-dev/triage/internal/crashsite"
	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/verdict"
)

// report reads what gdb.py left and classifies the program's end as `run`
// would: the same verdict, from the program's own exit or signal.
func report(p plan, s Spec, argv []string, gdb *spawn.Result, scan *verdict.Scanner) (*Report, error) {
	r := &Report{Argv: argv, Result: spawn.Result{Argv: append([]string{s.Program}, s.Args...), Path: s.Program,
		Dir: s.Dir, ExitCode: -1, TimedOut: gdb.TimedOut, Timeout: gdb.Timeout, Cancelled: gdb.Cancelled,
		Started: gdb.Started, Duration: gdb.Duration}}
	e, err := readEnd(p.End)
	cut := gdb.TimedOut || gdb.Cancelled
	switch {
	case err != nil && !cut:
		return nil, fmt.Errorf("%w (gdb: %s; its last line: %q)", ErrNoEnd, gdb, scan.LastLine())
	case err == nil:
		if err := e.check(p.Tracepoints); err != nil {
			return nil, err
		}
		r.setEnd(e, s)
	}
	hits, n, err := summarise(p.Events, p.Tracepoints, orDiscard(s.Events))
	if err != nil && !(cut && errors.Is(err, fs.ErrNotExist)) {
		return nil, fmt.Errorf("reading the event log: %w", err)
	}
	r.Tracepoints, r.Events = hits, n
	in := verdict.Input{Result: &r.Result, Scan: scan, Program: s.Program, ProjectDir: s.ProjectDir}
	if r.Trace != nil {
		if f, ok := r.Trace.Crashing(s.ProjectDir); ok {
			in.CrashFrame = &verdict.Frame{Function: f.Function, File: f.File, Line: f.Line}
		}
	}
	r.Verdict = verdict.Classify(in)
	r.setSite(s)
	return r, nil
}

// setSite takes the trace's site, else a panic's from the output's trace
// (as `run` does).
func (r *Report) setSite(s Spec) {
	if r.Trace != nil && r.Trace.Site != nil {
		r.Site = r.Trace.Site
		return
	}
	if f := r.Verdict.CrashFrame; f != nil && r.Verdict.Status == verdict.StatusCrash {
		r.Site = crashsite.FromTrace(f.Function, f.File, f.Line, s.ProjectDir, s.Dir)
	}
}

// setEnd takes the program's exit status or killing signal, and the crash
// site of the fatal signal that killed it.
func (r *Report) setEnd(e end, s Spec) {
	if e.ExitCode != nil {
		r.Result.Exited, r.Result.ExitCode = true, *e.ExitCode
		return
	}
	if e.Signal == "" {
		return
	}
	sig, _ := spawn.SignalByName(e.Signal)
	r.Result.Signaled, r.Result.Signal, r.Result.SignalName = true, sig, e.Signal
	if c := e.Crash; c != nil && c.Signal == e.Signal {
		tr, err := coredump.ParseGDBBacktrace(c.BT)
		if err != nil {
			return
		}
		tr.Signal = c.Signal
		tr.SetGDBSite(c.Site, c.Fault, s.ProjectDir, s.ProjectDir, filepath.Dir(s.Program))
		r.Trace = tr
	}
}

// event is one line of the event log.
type event struct {
	TP     int               `json:"tp"`
	Hit    int               `json:"hit"`
	Values map[string]string `json:"values"`
}

// summarise copies the event log to w and counts each tracepoint's hits,
// keeping the first and last values: memory stays flat however many hits.
func summarise(path string, tps []Tracepoint, w io.Writer) ([]Hits, int, error) {
	hits := make([]Hits, len(tps))
	for i, tp := range tps {
		hits[i].Tracepoint = tp
	}
	f, err := os.Open(path)
	if err != nil {
		return hits, 0, err
	}
	defer f.Close()
	// A line without its newline is one gdb was killed while writing (a
	// run cut short): it is left out.
	rd := bufio.NewReaderSize(f, 64<<10)
	n := 0
	for {
		line, err := rd.ReadBytes('\n')
		if err == io.EOF {
			break
		}
		if err != nil {
			return hits, n, err
		}
		var ev event
		if err := json.Unmarshal(line, &ev); err != nil || ev.TP < 0 || ev.TP >= len(hits) {
			return hits, n, fmt.Errorf("line %d: not an event: %q", n+1, line)
		}
		if _, err := w.Write(line); err != nil {
			return hits, n, err
		}
		n++
		h := &hits[ev.TP]
		h.Hits++
		h.Last = values(h.Exprs, ev.Values)
		if h.Hits == 1 {
			h.First = h.Last
		}
	}
	for i := range hits {
		hits[i].LimitReached = hits[i].Hits >= hits[i].Limit
	}
	return hits, n, nil
}

// values orders an event's values as the tracepoint's expressions.
func values(exprs []string, m map[string]string) []Value {
	out := make([]Value, 0, len(exprs))
	for _, e := range exprs {
		out = append(out, Value{Expr: e, Value: m[e]})
	}
	return out
}
