// Package interactive tells which debugger and dump-engine commands would
// make the engine read its own input: an interactive shell or Python
// prompt, an expression editor, the body of a block. triage drives gdb,
// lldb and crash through that input (one command, then a sentinel), so
// such a command would swallow the commands after it and hold the session
// until its timeout. These are refused, with what they would start; every
// other command runs, the engines' scripting and shell commands included
// (see "Engine scripting" in docs/ARCHITECTURE.md).
//
// The rules follow each engine's own spelling: gdb's and lldb's accepted
// abbreviations and aliases of the commands concerned, not only their full
// names. A command that reads the input by other means (gdb `shell sh`, a
// Python `input()`) is not recognised; it ends at its timeout, when the
// engine is interrupted or restarted.
package interactive

import (
	"errors"
	"fmt"
	"strings"
)

// Dialect is an engine's command language.
type Dialect string

// The dialects with interactive commands. drgn takes Python source, sent
// whole, and has none.
const (
	GDB   Dialect = "gdb"
	LLDB  Dialect = "lldb"
	Crash Dialect = "crash"
)

// ErrReadsInput: the command would make the engine read its own input.
var ErrReadsInput = errors.New("command would read the engine's own input")

// Check returns nil when line runs as a command of its own in dialect d,
// else ErrReadsInput saying what the line would start and how to give the
// same work on one line.
func Check(d Dialect, line string) error {
	what := What(d, line)
	if what == "" {
		return nil
	}
	return fmt.Errorf("%w: %q would start %s on %s's input, which carries triage's next commands, and hold the session until its timeout; give it its work on the same line (%s)",
		ErrReadsInput, strings.TrimSpace(line), what, d, OneLine(d))
}

// OneLine gives examples of commands of d that do their work on one line.
func OneLine(d Dialect) string {
	switch d {
	case LLDB:
		return "script print(1), platform shell ls, expr 1+1"
	case Crash:
		return "!ls, gdb python print(1)"
	}
	return "python print(1), shell ls, python-interactive 1+1"
}

// What returns what line would start reading the engine's input for ("an
// interactive shell", "the body of a block"...), or "" when it reads none.
func What(d Dialect, line string) string {
	f := strings.Fields(line)
	if len(f) == 0 {
		return ""
	}
	switch d {
	case GDB:
		return gdbWhat(f)
	case LLDB:
		return lldbWhat(f)
	case Crash:
		// "!" alone spawns the user's shell; "gdb CMD" is gdb's CMD.
		if f[0] == "!" && len(f) == 1 {
			return "an interactive shell"
		}
		if f[0] == "gdb" && len(f) > 1 {
			return gdbWhat(f[1:])
		}
	}
	return ""
}

const (
	shell  = "an interactive shell"
	python = "an interactive Python prompt"
	block  = "the body of a block (up to its end line)"
)

// gdbWhat: gdb takes any unambiguous prefix of a command's name, and
// aliases of its own.
func gdbWhat(f []string) string {
	verb, bare := f[0], len(f) == 1
	switch {
	case bare && (verb == "!" || abbrev(verb, "shell", 3)):
		return shell
	case bare && (verb == "pi" || abbrev(verb, "python-interactive", 8)):
		return python
	case bare && (verb == "gr" || abbrev(verb, "guile-repl", 7)):
		return "an interactive Guile prompt"
	case bare && (verb == "py" || verb == "python" || verb == "python3" || verb == "gu" || verb == "guile"):
		return block
	case bare && verb == "compile", len(f) == 2 && verb == "compile" && f[1] == "code":
		return block
	case verb == "define" || verb == "document" || verb == "commands" || verb == "if" || verb == "while":
		return block
	}
	return ""
}

// lldbWhat: lldb takes any unambiguous prefix of a command's name ("sc"
// is script), and the expression command's aliases.
func lldbWhat(f []string) string {
	verb, bare := f[0], len(f) == 1
	switch {
	case bare && abbrev(verb, "script", 2):
		return python
	case bare && (abbrev(verb, "expression", 1) || verb == "p" || verb == "print" || verb == "po" || verb == "call"):
		return "the expression editor (up to an empty line)"
	case len(f) == 3 && (abbrev(verb, "breakpoint", 2) || abbrev(verb, "watchpoint", 1)) &&
		abbrev(f[1], "command", 3) && abbrev(f[2], "add", 1):
		return block
	}
	return ""
}

// abbrev reports whether word is name or a prefix of it at least min bytes
// long (the shortest that the engine does not find ambiguous).
func abbrev(word, name string, min int) bool {
	return len(word) >= min && strings.HasPrefix(name, word)
}
