package analysis

import (
	"context"
	"fmt"

	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/postmortem"
)

// minLineShare is the least of the answer's output budget one line's excerpt
// gets: below it an excerpt shows too little to be worth a line of its own.
const minLineShare = 256

// Batch is what one command did: the lines it held, in order, and the result
// of each that ran.
type Batch struct {
	Engine postmortem.Engine
	Reason string // why that engine: a postmortem route reason
	Lines  []string
	// Results are one a line that ran; fewer than Lines when a line stopped
	// the lines after it.
	Results []Result
	// Stopped is why the lines after the last result did not run: a line
	// that did not complete (a timeout, an engine that ended).
	Stopped error
	// Failed counts the lines whose output the engine reported as an error;
	// Error is the first of them, as "line N: message".
	Failed int
	Error  string
}

// Command routes command (to explicit when set) on c.Session and runs the
// lines it holds. A command of one line is a batch of one result, and what
// kept it from running is the error; for several lines see runLines.
func (a *Analyst) Command(ctx context.Context, c Call, command string, explicit postmortem.Engine) (Batch, error) {
	route, err := c.Session.Router.Route(command, explicit)
	if err != nil {
		return Batch{}, err
	}
	lines, err := route.Lines()
	if err != nil {
		return Batch{}, err
	}
	if len(lines) > 1 {
		return a.runLines(ctx, c, route, lines)
	}
	route.Command = lines[0]
	if route.Engine == postmortem.EngineCrash || route.Engine == postmortem.EngineGDB {
		c.progress(0, 0, fmt.Sprintf("%s: %s", route.Engine, firstLine(route.Command)))
	}
	r, err := a.Run(ctx, c, route)
	if err != nil {
		return Batch{}, err
	}
	return Batch{Engine: route.Engine, Reason: route.Reason, Lines: lines, Results: []Result{r}}, nil
}

// runLines runs lines in order on the route's engine, as gdb -batch runs its
// -ex commands: each line is run, stored and cached as a command of its own,
// an engine error on one line does not stop the next, and the answer's
// output budget is shared between them. A line that does not complete stops
// the lines after it, whose state it would leave unknown.
func (a *Analyst) runLines(ctx context.Context, c Call, route postmortem.Route, lines []string) (Batch, error) {
	budget := a.budget()
	if most := budget / minLineShare; len(lines) > most {
		return Batch{}, fault.Usagef(
			"the command has %d lines; one answer holds the outputs of at most %d: send the rest in another call", len(lines), most)
	}
	share := budget / len(lines)
	b := Batch{Engine: route.Engine, Reason: route.Reason, Lines: lines}
	for i, line := range lines {
		c.progress(float64(i), float64(len(lines)), fmt.Sprintf("%s: %s", route.Engine, line))
		r, err := a.Run(ctx, c, postmortem.Route{Engine: route.Engine, Command: line, Reason: route.Reason})
		if err != nil {
			b.Stopped = fmt.Errorf("line %d %q: %w", i+1, line, err)
			break
		}
		if r, err = a.fitExcerpt(ctx, r, share); err != nil {
			return Batch{}, err
		}
		if r.Error != "" {
			b.Failed++
			if b.Error == "" {
				b.Error = fmt.Sprintf("line %d: %s", i+1, r.Error)
			}
		}
		b.Results = append(b.Results, r)
	}
	return b, nil
}

// fitExcerpt cuts r's excerpt down to share bytes when it is longer.
func (a *Analyst) fitExcerpt(ctx context.Context, r Result, share int) (Result, error) {
	if len(r.Output.Excerpt) <= share {
		return r, nil
	}
	text, err := a.fullText(ctx, r)
	if err != nil {
		return Result{}, err
	}
	r.Output = stored(r.Output.ID, buildExcerpt(text, share))
	return r, nil
}
