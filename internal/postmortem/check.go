package postmortem

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// ErrShellEscape: the command would run a host shell command (crash's "!cmd",
// "cmd | filter" and "> file", gdb's "shell"). Dump analysis must not reach the
// host through an engine; the caller filters output with output_search.
var ErrShellEscape = errors.New("command reaches the host shell")

// CheckCommand refuses commands that escape to the host shell or write host
// files. drgn is not checked: it runs Python, which is its purpose.
func CheckCommand(e Engine, cmd string) error {
	cmd = strings.TrimSpace(cmd)
	verb := firstWord(cmd)
	switch e {
	case EngineCrash:
		switch {
		case strings.HasPrefix(cmd, "!"):
			return fmt.Errorf("%w: crash runs %q in a shell; not allowed", ErrShellEscape, cmd)
		case unquotedIndex(cmd, '|') >= 0:
			return fmt.Errorf("%w: crash pipes output through a shell command after |; drop the pipe and search the stored output with output_search", ErrShellEscape)
		case redirectIndex(cmd) >= 0:
			return fmt.Errorf("%w: crash redirects output to a host file after >; drop the redirection (every output is stored)", ErrShellEscape)
		case verb == "gdb":
			if rest := strings.Fields(cmd); len(rest) > 1 && debugShellVerbs[rest[1]] {
				return fmt.Errorf("%w: %q runs a shell command through crash's gdb", ErrShellEscape, cmd)
			}
		}
	case EngineGDB, EngineLLDB:
		if debugShellVerbs[verb] || strings.HasPrefix(cmd, "!") || strings.HasPrefix(cmd, "|") ||
			(verb == "platform" && strings.Contains(cmd, "shell")) {
			return fmt.Errorf("%w: %q runs a host command; not allowed", ErrShellEscape, cmd)
		}
	}
	return nil
}

var debugShellVerbs = setOf("shell", "!", "pipe", "|", "make")

// unquotedIndex is the index of the first c outside single or double quotes,
// or -1.
func unquotedIndex(s string, c byte) int {
	var quote byte
	for i := 0; i < len(s); i++ {
		switch {
		case quote != 0:
			if s[i] == quote {
				quote = 0
			}
		case s[i] == '"' || s[i] == '\'':
			quote = s[i]
		case s[i] == c:
			return i
		}
	}
	return -1
}

// redirectIndex finds crash's output redirection: a '>' outside quotes that
// is not the '->' of a member access.
func redirectIndex(s string) int {
	off := 0
	for {
		i := unquotedIndex(s[off:], '>')
		if i < 0 {
			return -1
		}
		i += off
		if i == 0 || s[i-1] != '-' {
			return i
		}
		off = i + 1
	}
}

// Lines that engines print when a command failed. The output of a failed
// command is never cached: the cause (a typo, a missing symbol file) may be
// fixed by the next call.
var engineErrorRE = map[Engine]*regexp.Regexp{
	// "crash: command not found: x", "bt: invalid task or pid value: 9",
	// "struct: invalid data structure reference: x", "kmem: ... : seek error"
	EngineCrash: regexp.MustCompile(`(?m)^(?:crash: |[a-z_]+: (?:invalid|cannot|no such|unknown|read error|seek error|ambiguous|not found|command not found)|gdb: )`),
	EngineDrgn:  regexp.MustCompile(`(?m)^(?:Traceback \(most recent call last\):|\s*File "<dump_command>"|[A-Za-z_.]*(?:Error|Exception): )`),
	EngineGDB: regexp.MustCompile(`(?m)^(?:No symbol |Cannot access memory|Undefined command|No frame selected|No stack\.|No registers\.|` +
		`Invalid (?:thread|number)|A syntax error|The program has no|No thread selected|There is no member)`),
	EngineLLDB: regexp.MustCompile(`(?m)^error: `),
}

// EngineError returns the first line of output that says the command failed,
// or "" when output reads as a success.
func EngineError(e Engine, output string) string {
	re := engineErrorRE[e]
	if re == nil {
		return ""
	}
	loc := re.FindStringIndex(output)
	if loc == nil {
		return ""
	}
	line := output[loc[0]:]
	if e == EngineDrgn {
		// The exception line is the last line of a traceback.
		lines := strings.Split(strings.TrimRight(output[loc[0]:], "\n"), "\n")
		for i := len(lines) - 1; i >= 0; i-- {
			if strings.Contains(lines[i], "Error") || strings.Contains(lines[i], "Exception") {
				return strings.TrimSpace(lines[i])
			}
		}
	}
	if i := strings.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	return strings.TrimSpace(line)
}
