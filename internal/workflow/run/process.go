package run

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/background"
	"github.com/triage-dev/triage/internal/capture"
	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/duration"
	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/workflow/render"
)

// ProcessInfo describes a background process.
type ProcessInfo struct {
	ID       string   `json:"id" jsonschema:"process id for process_output and process_stop"`
	Pid      int      `json:"pid" jsonschema:"operating-system pid"`
	Argv     []string `json:"argv" jsonschema:"what runs"`
	Cwd      string   `json:"cwd,omitempty" jsonschema:"working directory"`
	Started  string   `json:"started" jsonschema:"start time (RFC 3339)"`
	Running  bool     `json:"running" jsonschema:"still running"`
	Verdict  string   `json:"verdict,omitempty" jsonschema:"verdict line once it ended"`
	OutputID string   `json:"output_id" jsonschema:"stored output"`
	SSHHost  string   `json:"ssh_host,omitempty" jsonschema:"the host it runs on (pid: the local ssh)"`
}

func info(j *background.Job) ProcessInfo {
	p := ProcessInfo{ID: j.ID, Pid: j.Pid, Argv: j.Argv, Cwd: j.Dir, Started: j.Started.Format(time.RFC3339), Running: true, OutputID: j.OutputID, SSHHost: j.Host}
	if o := j.Outcome(); o != nil {
		p.Running, p.Verdict = false, o.Verdict.Line
	}
	return p
}

// startParams are process_start's arguments: a program, and the checker
// it runs under from its start (capture.Check), whose report its verdict
// gives once it has ended (process_output, process_stop).
type startParams struct {
	processParams
	Check string `json:"check,omitempty" jsonschema:"run under a checker from the start: memory (valgrind memcheck), leaks (memcheck, definite leaks are failures), thread (valgrind helgrind: data races, lock order)"`
}

func (h *handler) start(ctx context.Context, c *catalog.Call, in startParams) (catalog.Result[ProcessInfo], error) {
	req, err := in.request(ctx, h.svc, false)
	var check capture.Check
	if err == nil {
		check, err = capture.ParseCheck(in.Check)
	}
	if err != nil {
		return catalog.Result[ProcessInfo]{}, err
	}
	req.Limit = c.Limit("timeout_s", in.TimeoutS > 0, "").String() // none built in: only a given one runs out
	m, err := h.svc.Jobs(ctx)
	if err != nil {
		return catalog.Result[ProcessInfo]{}, err
	}
	j, err := m.StartChecked(ctx, req, check)
	if err != nil {
		return catalog.Result[ProcessInfo]{}, capture.StartFailure(err)
	}
	return catalog.Result[ProcessInfo]{Text: startedText(j), Output: info(j)}, nil
}

// startedText says what started where, and the calls that read and stop it.
func startedText(j *background.Job) string {
	where := ""
	if j.Host != "" {
		where = " on " + j.Host
	}
	return fmt.Sprintf("STARTED %s (pid %d)%s: %s\nnext: %s, then %s\n", j.ID, j.Pid, where, strings.Join(j.Argv, " "),
		catalog.NextCall("process_output", map[string]any{"id": j.ID, "cursor": 0}),
		catalog.NextCall("process_stop", map[string]any{"id": j.ID}))
}

// ProcessList lists background processes.
type ProcessList struct {
	Processes []ProcessInfo `json:"processes" jsonschema:"oldest first"`
}

func (h *handler) list(ctx context.Context, c *catalog.Call, _ struct{}) (catalog.Result[ProcessList], error) {
	m, err := h.svc.Jobs(ctx)
	if err != nil {
		return catalog.Result[ProcessList]{}, err
	}
	jobs := m.List(ctx)
	out := ProcessList{Processes: []ProcessInfo{}}
	for _, j := range jobs {
		out.Processes = append(out.Processes, info(j))
	}
	var b strings.Builder
	background.WriteList(&b, jobs)
	return catalog.Result[ProcessList]{Text: b.String(), Output: out}, nil
}

type outputParams struct {
	ID     string           `json:"id"`
	Cursor int              `json:"cursor,omitempty" jsonschema:"next_cursor of the previous call"`
	Limit  int              `json:"limit,omitempty" jsonschema:"default 200"`
	WaitS  duration.Seconds `json:"wait_s,omitempty" jsonschema:"wait this long for new output (max 60)"`
}

// ProcessOutput is a slice of a background process's output.
type ProcessOutput struct {
	ID         string   `json:"id" jsonschema:"process id"`
	Lines      []string `json:"lines" jsonschema:"output lines from cursor"`
	NextCursor int      `json:"next_cursor" jsonschema:"cursor for the next call"`
	Running    bool     `json:"running" jsonschema:"still running"`
	Verdict    string   `json:"verdict,omitempty" jsonschema:"verdict line once it ended"`
	OutputID   string   `json:"output_id" jsonschema:"stored output (for output_search)"`
}

func (h *handler) output(ctx context.Context, c *catalog.Call, in outputParams) (catalog.Result[ProcessOutput], error) {
	m, err := h.svc.Jobs(ctx)
	if err != nil {
		return catalog.Result[ProcessOutput]{}, err
	}
	wait, err := in.wait()
	if err != nil {
		return catalog.Result[ProcessOutput]{}, err
	}
	j, p, err := m.Page(ctx, in.ID, in.Cursor, in.Limit, wait)
	if err != nil {
		return catalog.Result[ProcessOutput]{}, err
	}
	out := processOutput(j, in.Cursor, p.Lines)
	text := outputText(out, in.Cursor, p.TotalLines, j.Outcome())
	if wait > 0 && len(p.Lines) == 0 && out.Running {
		limit := c.Limit("wait_s", true, "")
		limit.Max = time.Minute
		head, rest, _ := strings.Cut(text, "\n")
		text = fmt.Sprintf("%s\nno new output %s\n%s", head, limit.Said(wait), rest)
	}
	return catalog.Result[ProcessOutput]{Text: text, Output: out}, nil
}

// wait checks the cursor and reads wait_s.
func (in outputParams) wait() (time.Duration, error) {
	if in.Cursor < 0 {
		return 0, fault.Usagef("cursor must be 0 or more")
	}
	return in.WaitS.Duration("wait_s", 0, time.Minute)
}

func processOutput(j *background.Job, cursor int, lines []string) ProcessOutput {
	pi := info(j)
	out := ProcessOutput{ID: j.ID, Lines: lines, NextCursor: cursor + len(lines), Running: pi.Running, Verdict: pi.Verdict, OutputID: j.OutputID}
	if out.Lines == nil {
		out.Lines = []string{}
	}
	return out
}

// outputText is a page of a process's output: its state, the lines, and
// the call that reads on; once the process has ended on a failure, the
// verdict's evidence (its core) and the calls that examine it.
func outputText(out ProcessOutput, cursor, total int, o *capture.Outcome) string {
	var b strings.Builder
	state := "running"
	if !out.Running {
		state = "ended: " + out.Verdict
	}
	fmt.Fprintf(&b, "PROCESS %s %s — lines %d–%d of %d\n", out.ID, state, cursor+1, out.NextCursor, total)
	for _, l := range out.Lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	next := catalog.NextCall("process_output", map[string]any{"id": out.ID, "cursor": out.NextCursor})
	if o == nil || o.Verdict.OK() {
		fmt.Fprintf(&b, "next: %s\n", next)
		return b.String()
	}
	o.Memcheck.WriteText(&b) // a checker's report (check), the verdict's cause
	o.Verdict.WriteEvidence(&b)
	writeHints(&b, o.Verdict.Hints)
	if out.NextCursor < total {
		fmt.Fprintf(&b, "more: %s\n", next)
	}
	return b.String()
}

type stopParams struct {
	ID     string           `json:"id"`
	GraceS duration.Seconds `json:"grace_s,omitempty" jsonschema:"SIGTERM to SIGKILL (default 3)"`
}

func (h *handler) stop(ctx context.Context, c *catalog.Call, in stopParams) (catalog.Result[RunOutput], error) {
	m, err := h.svc.Jobs(ctx)
	if err != nil {
		return catalog.Result[RunOutput]{}, err
	}
	grace, err := in.GraceS.Duration("grace_s", 0, spawn.MaxGrace)
	if err != nil {
		return catalog.Result[RunOutput]{}, err
	}
	j, err := m.StopStuck(ctx, in.ID, grace)
	if err != nil {
		return catalog.Result[RunOutput]{}, err
	}
	stored := j.Stored()
	return render.StoreFailure(renderOutcome(j.Outcome(), stored), stored), nil
}
