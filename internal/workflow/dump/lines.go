package dump

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/postmortem"
)

// minLineShare is the least of the answer's output budget one line's excerpt
// gets: below it an excerpt shows too little to be worth a line of its own.
const minLineShare = 256

// runLines runs the lines of one dump_command in order on the route's engine,
// as gdb -batch runs its -ex commands: each line is run, stored and cached as
// a command of its own, an engine error on one line does not stop the next,
// and the answer holds one output a line, the budget shared between them. A
// line that does not complete (a timeout, an engine that ended) stops the
// lines after it, whose state it would leave unknown.
func (h *handler) runLines(ctx context.Context, c *catalog.Call, s *postmortem.Session, route postmortem.Route, lines []string, force bool, timeout time.Duration) (catalog.Result[CommandOutput], error) {
	budget := h.svc.Config.BudgetBytes() / 2
	if most := budget / minLineShare; len(lines) > most {
		return catalog.Result[CommandOutput]{}, fault.Usagef(
			"the command has %d lines; one answer holds the outputs of at most %d: send the rest in another call", len(lines), most)
	}
	share := budget / len(lines)
	out := CommandOutput{SessionID: s.ID, Engine: string(route.Engine), Command: strings.Join(lines, "\n"), Route: route.Reason}
	var body strings.Builder
	failed := 0
	var stopped error
	for i, line := range lines {
		c.Progress(ctx, float64(i), float64(len(lines)), fmt.Sprintf("%s: %s", route.Engine, line))
		r, err := h.run(ctx, c.Tool, s, postmortem.Route{Engine: route.Engine, Command: line, Reason: route.Reason}, force, timeout)
		if err != nil {
			stopped = fmt.Errorf("line %d %q: %w", i+1, line, err)
			break
		}
		if len(r.excerpt.Text) > share {
			text, err := h.fullText(ctx, r)
			if err != nil {
				return catalog.Result[CommandOutput]{}, err
			}
			r.excerpt = buildExcerpt(text, share)
			r.out.Captured = catalog.NewCaptured(r.out.OutputID, r.excerpt.TotalLines, r.excerpt.Truncated)
		}
		if r.out.Error != "" {
			failed++
			if out.Error == "" {
				out.Error = fmt.Sprintf("line %d: %s", i+1, r.out.Error)
			}
		}
		out.Context = r.out.Context
		out.Notes = append(out.Notes, r.out.Notes...)
		out.Commands = append(out.Commands, r.out)
		r.write(&body)
	}
	var head string
	outcome := catalog.OK
	switch {
	case stopped != nil:
		outcome = catalog.Error
		head = fmt.Sprintf("ERROR %s, after %d of %d lines ran: %v", route.Engine, len(out.Commands), len(lines), stopped)
		if n := len(out.Commands) + 1; n < len(lines) {
			head += fmt.Sprintf("\nnot run: lines %d-%d", n+1, len(lines))
		}
	case failed > 0:
		outcome = catalog.Failed
		head = fmt.Sprintf("ENGINE ERROR %s: %d of %d lines failed, first %s", route.Engine, failed, len(lines), out.Error)
	default:
		head = fmt.Sprintf("OK %s: %d lines ran", route.Engine, len(lines))
	}
	return catalog.Result[CommandOutput]{Text: head + "\n" + body.String(), Output: out, Outcome: outcome}, nil
}
