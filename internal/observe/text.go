package observe

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/argpath"
	"github.com/triage-dev/triage/internal/coredump"
	"github.com/triage-dev/triage/internal/store"
)

// MaxFrames bounds the backtrace an answer shows.
const MaxFrames = 16

// NewSpec is the run of program with args in cwd (taken in projectDir, as
// the program would be run): paths made absolute, and the project's
// directory, for the crash site, the program's own when none is given.
func NewSpec(program string, args []string, cwd, projectDir string, env map[string]string, timeout time.Duration) Spec {
	s := Spec{Program: argpath.Program(program, cwd, projectDir), Args: args, Env: env,
		Dir: argpath.Base(cwd, projectDir), ProjectDir: argpath.Resolve(projectDir, "", ""), Timeout: timeout}
	if s.ProjectDir == "" {
		s.ProjectDir = filepath.Dir(s.Program)
	}
	return s
}

// Backtrace is the top MaxFrames frames of the crashing thread; nil when
// no fatal signal killed it.
func (r *Report) Backtrace() []coredump.Frame {
	if r.Trace == nil {
		return nil
	}
	return r.Trace.Frames[:min(len(r.Trace.Frames), MaxFrames)]
}

// WriteText writes the verdict line, each tracepoint's hits with its first
// and last values, the event log's size and id, the backtrace and the
// crash site.
func (r *Report) WriteText(b *strings.Builder, eventsID string) {
	fmt.Fprintf(b, "%s\n", r.Verdict.Line)
	for i, h := range r.Tracepoints {
		h.writeText(b, i)
	}
	fmt.Fprintf(b, "events: %d lines of JSON in %s\n", r.Events, eventsID)
	if r.Trace != nil {
		b.WriteString("backtrace (gdb):\n")
		for _, f := range r.Backtrace() {
			fmt.Fprintf(b, "  %s\n", f.String())
		}
	}
	if r.Site != nil {
		r.Site.WriteText(b)
	}
}

// writeText writes tracepoint i's line.
func (h Hits) writeText(b *strings.Builder, i int) {
	fmt.Fprintf(b, "tracepoint %d %s", i, h.Location)
	if h.Condition != "" {
		fmt.Fprintf(b, " if %s", h.Condition)
	}
	fmt.Fprintf(b, ": %d hits", h.Hits)
	if h.LimitReached {
		b.WriteString(" (limit reached; later hits not recorded)")
	}
	if h.Hits > 0 && len(h.First) > 0 {
		fmt.Fprintf(b, "; first %s; last %s", valuesLine(h.First), valuesLine(h.Last))
	}
	b.WriteByte('\n')
}

func valuesLine(vs []Value) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = v.Expr + "=" + v.Value
	}
	return strings.Join(parts, " ")
}

// RunStored runs s with its event log kept in st as an output of its own
// (JSON lines, engine gdb, under tool's name); a run that fails leaves
// none. It returns the report and the event log's id.
func RunStored(ctx context.Context, st *store.Store, tool string, s Spec) (*Report, string, error) {
	events, err := st.Create(ctx, store.Meta{Tool: tool, Argv: append([]string{s.Program}, s.Args...), Cwd: s.Dir, Engine: "gdb"})
	if err != nil {
		return nil, "", err
	}
	s.Events = events
	r, err := Run(ctx, s)
	if err != nil {
		events.Abort()
		return nil, "", err
	}
	if err := events.Finish(context.WithoutCancel(ctx), r.Final()); err != nil {
		return nil, "", fmt.Errorf("storing the event log: %w", err)
	}
	return r, events.ID(), nil
}

// Final is the run's end as the store records it.
func (r *Report) Final() store.Final {
	return store.Final{Status: string(r.Verdict.Status), VerdictLine: r.Verdict.Line, ExitCode: r.Result.ExitCode}
}
