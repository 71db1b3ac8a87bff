package postmortem

import (
	"regexp"
	"strings"
	"sync"

	"github.com/triage-dev/triage/internal/interactive"
)

// CheckCommand refuses a command that would make engine e read its own
// input (interactive.What: crash's "!" alone, gdb's "shell" or "python"
// with nothing after it, lldb's "script" alone...): the engine would take
// the next commands triage sends as that input and hold the session until
// the timeout. Nothing else is refused: the engines' scripting (gdb's
// python, lldb's script, drgn, crash's "!cmd", pipes and redirections) is
// what post-mortem analysis needs, and a client that may call triage may
// run programs as the server's user anyway (docs/ARCHITECTURE.md, "Engine
// scripting").
func CheckCommand(e Engine, cmd string) error {
	switch e {
	case EngineCrash, EngineGDB, EngineLLDB:
		return interactive.Check(interactive.Dialect(e), cmd)
	}
	return nil
}

// Lines that engines print when a command failed. The output of a failed
// command is never cached: the cause (a typo, a missing symbol file) may be
// fixed by the next call.
var engineErrorRE = sync.OnceValue(func() map[Engine]*regexp.Regexp {
	return map[Engine]*regexp.Regexp{
		// "crash: command not found: x", "bt: invalid task or pid value: 9",
		// "struct: invalid data structure reference: x", "kmem: ... : seek error"
		EngineCrash: regexp.MustCompile(`(?m)^(?:crash: |[a-z_]+: (?:invalid|cannot|no such|unknown|read error|seek error|ambiguous|not found|command not found)|gdb: )`),
		EngineDrgn:  regexp.MustCompile(`(?m)^(?:Traceback \(most recent call last\):|\s*File "<dump_command>"|[A-Za-z_.]*(?:Error|Exception): )`),
		EngineGDB: regexp.MustCompile(`(?m)^(?:No symbol |Cannot access memory|Undefined command|No frame selected|No stack\.|No registers\.|` +
			`Invalid (?:thread|number)|A syntax error|The program has no|No thread selected|There is no member)`),
		EngineLLDB: regexp.MustCompile(`(?m)^error: `),
	}
})

// EngineError returns the first line of output that says the command failed,
// or "" when output reads as a success.
func EngineError(e Engine, output string) string {
	re := engineErrorRE()[e]
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
