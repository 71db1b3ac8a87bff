package debugger

import (
	"context"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/triage-dev/triage/internal/spawn"
)

// Software watchpoints: where the host does not deliver hardware
// watchpoints (spawn.HardwareWatchpoints), the lldb backends watch a write
// by single-stepping the target in lldb's own Python (softwatch.py), far
// faster than a command round trip per step. A read cannot be seen that
// way.

//go:embed softwatch.py
var softWatchPy string

// DefaultWatchSteps bounds one continue under software watches.
const DefaultWatchSteps = 2_000_000

// SoftWatchFor says whether a session's watch must be emulated, and why
// (for the breakpoint's Via): a local session's on a host that does not
// deliver hardware watchpoints, or any when forced (Config.SoftWatch). A
// remote session's decision is SoftWatchForHost's, probed on its host.
func SoftWatchFor(remote, forced bool) (bool, string) {
	if !remote { // a remote host is not probed from here
		if soft, why := SoftWatchNeeded(); soft {
			return soft, why
		}
	}
	if forced {
		return true, "watching by single-stepping, slow (asked for)"
	}
	return false, ""
}

// AddSoftWatch loads softwatch.py into an lldb, through run (one lldb
// command, its output), and registers the watch id on expr with it.
func AddSoftWatch(ctx context.Context, run func(context.Context, string) (string, error), id int, expr string) error {
	if _, err := run(ctx, LLDBSoftWatchLoad()); err != nil {
		return fmt.Errorf("watch %q: loading the software watch: %w", expr, err)
	}
	out, err := run(ctx, LLDBSoftWatchAdd(id, expr))
	if err != nil {
		return fmt.Errorf("watch %q: %w", expr, err)
	}
	r, err := ParseSoftWatch(out)
	if err == nil && r.Kind != "added" {
		err = fmt.Errorf("watch %q: %s", expr, r.Error)
	}
	return err
}

// LLDBBreakpointAtWatchStop runs, through run (one lldb command, its
// output), before a continue from a hardware watchpoint's stop: it answers
// lldb's id of a breakpoint whose location is the pc that stop left (its
// condition and ignore count honoured), 0 if none. The continue then
// reports that breakpoint's stop instead of running: lldb would step over
// it unreported, and the software watch stops there too.
func LLDBBreakpointAtWatchStop(ctx context.Context, run func(context.Context, string) (string, error)) (int, error) {
	if _, err := run(ctx, LLDBSoftWatchLoad()); err != nil {
		return 0, fmt.Errorf("looking for a breakpoint at the watch's stop: %w", err)
	}
	out, err := run(ctx, "script triage_sw_at_pc()")
	if err != nil {
		return 0, fmt.Errorf("looking for a breakpoint at the watch's stop: %w", err)
	}
	r, err := ParseSoftWatch(out)
	if err != nil || r.Kind != "breakpoint" {
		return 0, err
	}
	return r.BP, nil
}

// WatchStopBreakpointDescription describes the stop at lldb breakpoint lid
// that LLDBBreakpointAtWatchStop found.
func WatchStopBreakpointDescription(lid int) string {
	return fmt.Sprintf("breakpoint %d (its location is where the watchpoint's stop left the target)", lid)
}

// SoftWatchNeeded says whether a watch on this host must be emulated, and
// why, for a breakpoint's Via.
func SoftWatchNeeded() (bool, string) {
	ok, why := spawn.HardwareWatchpoints()
	if ok {
		return false, ""
	}
	return true, "hardware watchpoints are not delivered on this host (" + why + "); watching by single-stepping, slow"
}

// SoftWatchReadError refuses a read or readwrite watch where it would
// have to be emulated.
func SoftWatchReadError(access Access, why string) error {
	return fmt.Errorf("watch for %s: unsupported here because %s, and single-stepping sees writes only (a value that changes), not reads: %w", access, why, ErrUnsupported)
}

// LLDBSoftWatchLoad is the lldb command defining softwatch.py's functions
// in lldb's interpreter (one line, so it works over any lldb, remote too);
// defining them again keeps the watches.
var LLDBSoftWatchLoad = sync.OnceValue(func() string {
	return "script exec(__import__('base64').b64decode('" + base64.StdEncoding.EncodeToString([]byte(softWatchPy)) + "').decode(), globals())"
})

// LLDBSoftWatchAdd registers our watch id on expr, read in the selected frame.
func LLDBSoftWatchAdd(id int, expr string) string {
	q, _ := json.Marshal(expr)
	return fmt.Sprintf("script triage_sw_add(%d, %s)", id, q)
}

// LLDBSoftWatchDelete forgets our watch id.
func LLDBSoftWatchDelete(id int) string { return fmt.Sprintf("script triage_sw_del(%d)", id) }

// LLDBSoftWatchRun steps until a watched value changes, a breakpoint's
// location is reached, the target stops otherwise, or steps or wait run out.
func LLDBSoftWatchRun(steps int, wait time.Duration) string {
	return fmt.Sprintf("script triage_sw_run(%d, %.3f)", steps, wait.Seconds())
}

// SoftWatchResult is softwatch.py's answer.
type SoftWatchResult struct {
	Kind     string `json:"kind"` // added, error, changed, breakpoint, other, limit, time, none
	Error    string `json:"error"`
	ID       int    `json:"id"`
	Old      string `json:"old"`
	New      string `json:"new"`
	File     string `json:"file"`
	Line     int    `json:"line"`
	Function string `json:"function"`
	Steps    int    `json:"steps"`
	BP       int    `json:"bp"` // lldb's breakpoint id
	// For Kind other: lldb's process state ("exited", "stopped"), the
	// exit status, the stop's description and signal.
	State       string `json:"state"`
	Exit        int    `json:"exit"`
	Description string `json:"description"`
	Signal      string `json:"signal"`
}

var softWatchRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^TRIAGE-WATCH (\{.*\})\s*$`) })

// ParseSoftWatch reads softwatch.py's answer from lldb's output.
func ParseSoftWatch(out string) (SoftWatchResult, error) {
	var r SoftWatchResult
	m := softWatchRE().FindStringSubmatch(out)
	if m == nil {
		return r, fmt.Errorf("software watch: unexpected lldb output: %q", strings.TrimSpace(out))
	}
	if err := json.Unmarshal([]byte(m[1]), &r); err != nil {
		return r, fmt.Errorf("software watch: %v in %q", err, m[1])
	}
	return r, nil
}

// SoftWatchStop is the stop a changed value makes: a watchpoint stop with
// the line of the instruction that wrote.
func SoftWatchStop(r SoftWatchResult, expr string, thread int) *Stop {
	return &Stop{Reason: StopBreakpoint, ThreadID: thread, BreakpointIDs: []int{r.ID}, At: time.Now(),
		Description: fmt.Sprintf("watchpoint %d (software: a write seen after %d single steps)", r.ID, r.Steps),
		Watch:       &WatchHit{ID: r.ID, Expr: expr, Old: r.Old, New: r.New, File: r.File, Line: r.Line}}
}

// SoftWatchLimitError says a continue under software watches ran out of
// steps or of its wait with nothing written: the target stays stopped.
func SoftWatchLimitError(r SoftWatchResult, limit int, wait time.Duration) error {
	if r.Kind == "limit" {
		return fmt.Errorf("watching by single-stepping: no watched value changed in %d steps (the step limit); the target is stopped where the last step left it: continue again to watch further", r.Steps)
	}
	return fmt.Errorf("watching by single-stepping: no watched value changed in %s (%d steps, the wait; the step limit is %d); the target is stopped where the last step left it: continue again to watch further", wait, r.Steps, limit)
}
