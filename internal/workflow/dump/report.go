package dump

import (
	"context"
	"fmt"
	"strings"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/postmortem/analysis"
	"github.com/triage-dev/triage/internal/workflow/wire"
)

type reportParams struct {
	sessionParam
	Force bool `json:"force,omitempty" jsonschema:"bypass the cache"`
}

// PanicTask is the task a kernel backtrace belongs to.
type PanicTask struct {
	PID     int    `json:"pid"`
	Command string `json:"command"`
	Task    string `json:"task"`
	CPU     int    `json:"cpu"`
}

// ReportOutput is the first look at a dump.
type ReportOutput struct {
	SessionID string `json:"session_id" jsonschema:"the session"`
	Kernel    bool   `json:"kernel" jsonschema:"a kernel dump"`
	Verdict   string `json:"verdict" jsonschema:"one-line summary"`
	// Kernel dumps.
	Release     string     `json:"release,omitempty" jsonschema:"kernel release"`
	Uptime      string     `json:"uptime,omitempty" jsonschema:"uptime at the crash"`
	Panic       string     `json:"panic,omitempty" jsonschema:"panic message"`
	Tainted     string     `json:"tainted,omitempty" jsonschema:"taint mask and flags"`
	CPUs        string     `json:"cpus,omitempty" jsonschema:"CPU count"`
	LoadAverage string     `json:"load_average,omitempty" jsonschema:"load average"`
	Task        *PanicTask `json:"task,omitempty" jsonschema:"the panicking task"`
	LogTail     []string   `json:"log_tail,omitempty" jsonschema:"last kernel log lines"`
	// Process cores.
	Signal         string          `json:"signal,omitempty" jsonschema:"signal that killed the process"`
	FaultAddress   string          `json:"fault_address,omitempty" jsonschema:"faulting address (SIGSEGV, SIGBUS)"`
	Function       string          `json:"function,omitempty" jsonschema:"crashing function"`
	Location       string          `json:"location,omitempty" jsonschema:"file:line of the crash"`
	Registers      []string        `json:"registers,omitempty" jsonschema:"general registers of the crashed thread"`
	MissingSymbols []string        `json:"missing_symbols,omitempty" jsonschema:"shared libraries without debug symbols"`
	CrashSite      *wire.CrashSite `json:"crash_site,omitempty" jsonschema:"source, arguments and locals of the first frame in the program's code; the fault address"`
	// Both.
	Backtrace []string    `json:"backtrace,omitempty" jsonschema:"frames of the panicking task or crashed thread"`
	Problems  []string    `json:"problems,omitempty" jsonschema:"engine commands that failed while building the report"`
	Next      []wire.Hint `json:"next,omitempty" jsonschema:"the dump_command calls that usually come next"`
	catalog.Captured
}

func (h *handler) report(ctx context.Context, c *catalog.Call, in reportParams) (catalog.Result[ReportOutput], error) {
	call, err := h.call(ctx, c, in.SessionID, in.Force, 0)
	if err != nil {
		return catalog.Result[ReportOutput]{}, err
	}
	r, err := h.analyst.Report(ctx, call)
	if err != nil {
		return catalog.Result[ReportOutput]{}, describe(err)
	}
	out := reportOutput(call.Session.ID, r)
	for _, st := range analysis.NextSteps(r, call.Session.Router.DefaultEngine()) {
		out.Next = append(out.Next, wire.Hint{Text: st.Why, Tool: "dump_command", Args: map[string]any{"session_id": out.SessionID, "command": st.Command}})
	}
	// A dump records a crash: the CLI exits non-zero, like run on a crasher.
	return catalog.Result[ReportOutput]{Text: reportText(out, r.Output.Excerpt), Output: out, Outcome: catalog.Failed}, nil
}

func reportOutput(sessionID string, r analysis.Report) ReportOutput {
	out := ReportOutput{SessionID: sessionID, Kernel: r.Kernel, Verdict: r.Verdict,
		Release: r.Release, Uptime: r.Uptime, Panic: r.Panic, Tainted: r.Tainted, CPUs: r.CPUs, LoadAverage: r.LoadAverage, LogTail: r.LogTail,
		Signal: r.Signal, FaultAddress: r.FaultAddress, Function: r.Function, Location: r.Location, Registers: r.Registers, MissingSymbols: r.MissingSymbols,
		CrashSite: wire.CrashSiteOf(r.Site), Backtrace: r.Backtrace, Problems: r.Problems, Captured: captured(r.Output)}
	if t := r.Task; t != nil {
		out.Task = &PanicTask{PID: t.PID, Command: t.Command, Task: t.Task, CPU: t.CPU}
	}
	return out
}

// reportText is the verdict line, then the stored report's excerpt.
func reportText(out ReportOutput, excerpt string) string {
	var b strings.Builder
	b.WriteString(out.Verdict + "\n")
	if out.Truncated {
		catalog.WriteExcerpt(&b, out.Captured, excerpt)
		writeNext(&b, out.Next)
		return b.String()
	}
	// The verdict is the first line already.
	_, body, _ := strings.Cut(excerpt, "\n")
	b.WriteString(body)
	fmt.Fprintf(&b, "report stored as %s\n", out.OutputID)
	writeNext(&b, out.Next)
	return b.String()
}

// writeNext lists the calls that usually come next.
func writeNext(b *strings.Builder, next []wire.Hint) {
	if len(next) == 0 {
		return
	}
	b.WriteString("next:\n")
	for _, h := range next {
		fmt.Fprintf(b, "  - %s: %s\n", h.Text, catalog.NextCall(h.Tool, h.Args))
	}
}
