package dump

import (
	"context"
	"fmt"
	"strings"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/duration"
	"github.com/triage-dev/triage/internal/postmortem"
	"github.com/triage-dev/triage/internal/postmortem/analysis"
	"github.com/triage-dev/triage/internal/workflow/wire"
)

type commandParams struct {
	sessionParam
	Command  string           `json:"command" jsonschema:"a crash:, drgn:, gdb: or lldb: prefix picks the engine"`
	Engine   string           `json:"engine,omitempty"` // the tool description names the engines
	Force    bool             `json:"force,omitempty" jsonschema:"bypass the cache"`
	TimeoutS duration.Seconds `json:"timeout_s,omitempty"`
}

// CommandOutput is one command's result.
type CommandOutput struct {
	SessionID string             `json:"session_id" jsonschema:"the session"`
	Engine    string             `json:"engine" jsonschema:"engine that ran the command"`
	Command   string             `json:"command" jsonschema:"the command as sent, prefix removed"`
	Route     string             `json:"route" jsonschema:"why that engine: explicit, prefix, crash-verb, python or default"`
	Cached    bool               `json:"cached,omitempty" jsonschema:"served from the cache (force re-runs)"`
	Error     string             `json:"error,omitempty" jsonschema:"the engine's error message when the command failed"`
	Context   wire.EngineContext `json:"context" jsonschema:"engine context after the command (task, CPU, thread, frame)"`
	Notes     []string           `json:"notes,omitempty" jsonschema:"what happened to the engine (restarts)"`
	catalog.Captured
	// Commands are the results of a command of several lines, one a line
	// in order; the fields above then describe the whole (its first engine
	// error, the context after the last line) and carry no output.
	Commands []CommandOutput `json:"commands,omitempty" jsonschema:"one result a line, for a command of several lines"`
}

func (h *handler) command(ctx context.Context, c *catalog.Call, in commandParams) (catalog.Result[CommandOutput], error) {
	call, err := h.call(ctx, c, in.SessionID, in.Force, in.TimeoutS)
	if err != nil {
		return catalog.Result[CommandOutput]{}, err
	}
	b, err := h.analyst.Command(ctx, call, in.Command, postmortem.Engine(in.Engine))
	if err != nil {
		return catalog.Result[CommandOutput]{}, describe(err)
	}
	return batchResult(call.Session.ID, b), nil
}

// batchResult renders a command of one line as that line's result, and one
// of several lines as a head for the whole over each line's result.
func batchResult(sessionID string, b analysis.Batch) catalog.Result[CommandOutput] {
	if len(b.Lines) == 1 {
		return commandResult(sessionID, b.Results[0])
	}
	return linesResult(sessionID, b)
}

func commandOutput(sessionID string, r analysis.Result) CommandOutput {
	return CommandOutput{SessionID: sessionID, Engine: string(r.Engine), Command: r.Command, Route: r.Route,
		Cached: r.Cached, Error: r.Error, Context: wire.EngineContextOf(r.Context), Notes: r.Notes, Captured: captured(r.Output)}
}

func captured(s analysis.Stored) catalog.Captured {
	return catalog.NewCaptured(s.ID, s.TotalLines, s.Truncated)
}

func commandResult(sessionID string, r analysis.Result) catalog.Result[CommandOutput] {
	var b strings.Builder
	out := commandOutput(sessionID, r)
	writeCommand(&b, out, r.Output.Excerpt)
	outcome := catalog.OK
	if out.Error != "" {
		outcome = catalog.Failed
	}
	return catalog.Result[CommandOutput]{Text: b.String(), Output: out, Outcome: outcome}
}

// writeCommand renders one command's result: its verdict line, context,
// notes and output excerpt.
func writeCommand(b *strings.Builder, o CommandOutput, excerpt string) {
	b.WriteString(commandVerdict(o))
	if k := postmortem.Context(o.Context).Key(); k != "" {
		fmt.Fprintf(b, "context: %s\n", k)
	}
	for _, n := range o.Notes {
		fmt.Fprintf(b, "note: %s\n", n)
	}
	catalog.WriteExcerpt(b, o.Captured, excerpt)
}

func commandVerdict(o CommandOutput) string {
	label := fmt.Sprintf("%s %q", o.Engine, firstLine(o.Command))
	switch {
	case o.Error != "":
		return fmt.Sprintf("ENGINE ERROR %s: %s\n", label, o.Error)
	case o.Cached:
		return fmt.Sprintf("OK %s: %d lines (cached; force: true re-runs)\n", label, o.TotalLines)
	}
	return fmt.Sprintf("OK %s: %d lines\n", label, o.TotalLines)
}

// linesResult renders a command of several lines: a head line for the
// whole, then each line's result.
func linesResult(sessionID string, bt analysis.Batch) catalog.Result[CommandOutput] {
	out := CommandOutput{SessionID: sessionID, Engine: string(bt.Engine), Command: strings.Join(bt.Lines, "\n"), Route: bt.Reason, Error: bt.Error}
	var body strings.Builder
	for _, r := range bt.Results {
		o := commandOutput(sessionID, r)
		out.Context = o.Context
		out.Notes = append(out.Notes, o.Notes...)
		out.Commands = append(out.Commands, o)
		writeCommand(&body, o, r.Output.Excerpt)
	}
	head, outcome := linesHead(bt)
	return catalog.Result[CommandOutput]{Text: head + "\n" + body.String(), Output: out, Outcome: outcome}
}

func linesHead(bt analysis.Batch) (string, catalog.Outcome) {
	ran, total := len(bt.Results), len(bt.Lines)
	switch {
	case bt.Stopped != nil:
		head := fmt.Sprintf("ERROR %s, after %d of %d lines ran: %v", bt.Engine, ran, total, bt.Stopped)
		if n := ran + 1; n < total {
			head += fmt.Sprintf("\nnot run: lines %d-%d", n+1, total)
		}
		return head, catalog.Error
	case bt.Failed > 0:
		return fmt.Sprintf("ENGINE ERROR %s: %d of %d lines failed, first %s", bt.Engine, bt.Failed, total, bt.Error), catalog.Failed
	}
	return fmt.Sprintf("OK %s: %d lines ran", bt.Engine, total), catalog.OK
}
