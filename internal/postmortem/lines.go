package postmortem

import (
	"errors"
	"fmt"
	"strings"
)

// ErrBlockCommand: a command opens a block whose body the engine reads from
// the lines after it, which Exec cannot send as commands of their own.
var ErrBlockCommand = errors.New("command opens a block")

// Lines splits a routed command into the commands it holds, one a line, in
// order, for its engine: blank lines are dropped (gdb repeats the last command
// on one), and a line's own prefix naming the route's engine is removed. drgn
// takes Python, whose lines belong together: its command is one.
//
// A line that names another engine, or opens a block that reads the lines
// after it (gdb's python, define, commands, if, while; lldb's script or
// expression without arguments), is refused with what is wrong.
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
		if opensBlock(r.Engine, line) {
			return nil, fmt.Errorf("%w: line %d %q makes %s read the lines after it as the block's body, and each line is sent as a command of its own: put the work on one line (gdb: python print(1); lldb: script print(1))",
				ErrBlockCommand, i+1, line, r.Engine)
		}
		lines = append(lines, line)
	}
	if len(lines) == 0 {
		return nil, ErrEmptyCommand
	}
	return lines, nil
}

// opensBlock reports whether line starts a multi-line construct of engine e.
func opensBlock(e Engine, line string) bool {
	f := strings.Fields(line)
	verb := f[0]
	switch e {
	case EngineGDB:
		switch verb {
		case "define", "document", "commands", "if", "while":
			return true
		case "python", "py", "python3", "python-interactive", "pi", "guile", "gu":
			return len(f) == 1
		case "compile":
			return len(f) == 2 && f[1] == "code"
		}
	case EngineLLDB:
		switch verb {
		case "script", "scr", "expression", "expr":
			return len(f) == 1
		}
	}
	return false
}
