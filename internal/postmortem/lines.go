package postmortem

import (
	"fmt"
	"strings"

	"github.com/triage-dev/triage/internal/interactive"
)

// Lines splits a routed command into the commands it holds, one a line, in
// order, for its engine: blank lines are dropped (gdb repeats the last command
// on one), and a line's own prefix naming the route's engine is removed. drgn
// takes Python, whose lines belong together: its command is one.
//
// A line that names another engine, or makes the engine read the lines
// after it (interactive.What: gdb's python, define, commands, if, while;
// lldb's script or expression without arguments; an interactive shell), is
// refused with what is wrong.
func (r Route) Lines() ([]string, error) {
	if r.Engine == EngineDrgn {
		return []string{r.Command}, nil
	}
	var lines []string
	for i, line := range strings.Split(r.Command, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if e, rest, err := splitPrefix(line); err == nil && e != "" {
			if e != r.Engine {
				return nil, fmt.Errorf("%w: line %d is for %s, the command's first line for %s; one call runs its lines on one engine: send it in a call of its own",
					ErrEngineConflict, i+1, e, r.Engine)
			}
			line = strings.TrimSpace(rest)
			if line == "" {
				continue
			}
		}
		if what := interactive.What(interactive.Dialect(r.Engine), line); what != "" {
			return nil, fmt.Errorf("%w: line %d %q makes %s read the lines after it as %s, and each line is sent as a command of its own: give it its work on the same line (%s)",
				interactive.ErrReadsInput, i+1, line, r.Engine, what, interactive.OneLine(interactive.Dialect(r.Engine)))
		}
		lines = append(lines, line)
	}
	if len(lines) == 0 {
		return nil, ErrEmptyCommand
	}
	return lines, nil
}
