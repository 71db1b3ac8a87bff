package dump

import (
	"context"
	"fmt"
	"strings"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/duration"
	"github.com/triage-dev/triage/internal/postmortem"
	"github.com/triage-dev/triage/internal/postmortem/analysis"
	"github.com/triage-dev/triage/internal/textclip"
	"github.com/triage-dev/triage/internal/workflow/wire"
)

type commandParams struct {
	sessionParam
	Command  string           `json:"command" jsonschema:"a crash:, drgn:, gdb: or lldb: prefix picks the engine"`
	Engine   string           `json:"engine,omitempty"` // the tool description names the engines
	Force    bool             `json:"force,omitempty" jsonschema:"bypass the cache"`
	TimeoutS duration.Seconds `json:"timeout_s,omitempty"`
}

func (h *handler) command(ctx context.Context, c *catalog.Call, in commandParams) (catalog.Result[wire.DumpCommand], error) {
	call, err := h.call(ctx, c, in.SessionID, in.Force, in.TimeoutS)
	if err != nil {
		return catalog.Result[wire.DumpCommand]{}, err
	}
	b, err := h.analyst.Command(ctx, call, in.Command, postmortem.Engine(in.Engine))
	if err != nil {
		return catalog.Result[wire.DumpCommand]{}, analysis.Classify(err)
	}
	return batchResult(call.Session.ID, b), nil
}

// batchResult renders a command of one line as that line's result, and one
// of several lines as a head for the whole over each line's result.
func batchResult(sessionID string, b analysis.Batch) catalog.Result[wire.DumpCommand] {
	if len(b.Lines) == 1 {
		return commandResult(sessionID, b.Results[0])
	}
	return linesResult(sessionID, b)
}

func commandResult(sessionID string, r analysis.Result) catalog.Result[wire.DumpCommand] {
	var b strings.Builder
	out := wire.DumpCommandOf(sessionID, r)
	writeCommand(&b, out, r.Output.Excerpt)
	outcome := catalog.OK
	if out.Error != "" {
		outcome = catalog.Failed
	}
	return catalog.Result[wire.DumpCommand]{Text: b.String(), Output: out, Outcome: outcome}
}

// writeCommand renders one command's result: its verdict line, context,
// notes and output excerpt.
func writeCommand(b *strings.Builder, o wire.DumpCommand, excerpt string) {
	b.WriteString(commandVerdict(o))
	if k := postmortem.Context(o.Context).Key(); k != "" {
		fmt.Fprintf(b, "context: %s\n", k)
	}
	for _, n := range o.Notes {
		fmt.Fprintf(b, "note: %s\n", n)
	}
	catalog.WriteExcerpt(b, o.Captured, excerpt)
}

func commandVerdict(o wire.DumpCommand) string {
	label := fmt.Sprintf("%s %q", o.Engine, firstLine(o.Command))
	switch {
	case o.Error != "":
		return fmt.Sprintf("ENGINE ERROR %s: %s\n", label, o.Error)
	case o.Cached:
		return fmt.Sprintf("OK %s: %s (cached; force: true re-runs)\n", label, textclip.Count(o.TotalLines, "line"))
	}
	return fmt.Sprintf("OK %s: %s\n", label, textclip.Count(o.TotalLines, "line"))
}

// linesResult renders a command of several lines: a head line for the
// whole, then each line's result.
func linesResult(sessionID string, bt analysis.Batch) catalog.Result[wire.DumpCommand] {
	out := wire.DumpCommand{SessionID: sessionID, Engine: string(bt.Engine), Command: strings.Join(bt.Lines, "\n"), Route: bt.Reason, Error: bt.Error}
	var body strings.Builder
	for _, r := range bt.Results {
		o := wire.DumpCommandOf(sessionID, r)
		out.Context = o.Context
		out.Notes = append(out.Notes, o.Notes...)
		out.Commands = append(out.Commands, o)
		writeCommand(&body, o, r.Output.Excerpt)
	}
	head, outcome := linesHead(bt)
	return catalog.Result[wire.DumpCommand]{Text: head + "\n" + body.String(), Output: out, Outcome: outcome}
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
	return fmt.Sprintf("OK %s: %s ran", bt.Engine, textclip.Count(total, "line")), catalog.OK
}
