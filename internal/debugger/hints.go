package debugger

import "strings"

// evalHints are, per debugger, the words of common evaluation failures and
// what to try instead. lldb's expression evaluator compiles and runs code
// in the target, which fails where reading the variable would not (a value
// it cannot materialize, memory it cannot read back): `frame variable`
// reads without running anything.
var evalHints = map[string][]struct{ words, hint string }{
	"lldb": {
		{"undeclared identifier", "no such name in this frame: debug_variables lists the names, debug_stack the other frames"},
		{"couldn't apply expression side effects", readWithoutRunning},
		{"couldn't materialize", readWithoutRunning},
		{"couldn't dematerialize", readWithoutRunning},
		{"couldn't read", readWithoutRunning},
		{"can't evaluate expressions", readWithoutRunning},
		{"expression can't be run", readWithoutRunning},
	},
	"gdb": {
		{"no symbol", "no such name in this frame: debug_variables lists the names, debug_stack the other frames"},
		{"cannot access memory", "the address is not readable: check the pointer's value with debug_variables"},
	},
	"dlv": {
		{"could not find symbol", "no such name in this frame: debug_variables lists the names, debug_stack the other frames"},
		{"invalid memory address", "the address is not readable: check the pointer's value with debug_variables"},
		{"could not read", "the address is not readable: check the pointer's value with debug_variables"},
	},
}

const readWithoutRunning = "read it without running code: debug_command \"frame variable EXPR\" (or \"p EXPR\"), or debug_variables"

// EvalHint says what to try after evaluating expr failed with msg in
// debugger ("lldb", "gdb" or "dlv"); "" when the failure has no common
// remedy.
func EvalHint(debugger, expr, msg string) string {
	msg = strings.ToLower(msg)
	for _, h := range evalHints[debugger] {
		if strings.Contains(msg, h.words) {
			return strings.ReplaceAll(h.hint, "EXPR", expr)
		}
	}
	return ""
}

// WithEvalHint appends EvalHint's advice to err, if it has any.
func WithEvalHint(err error, debugger, expr string) error {
	if err == nil {
		return nil
	}
	if hint := EvalHint(debugger, expr, err.Error()); hint != "" {
		return &hinted{err: err, hint: hint}
	}
	return err
}

type hinted struct {
	err  error
	hint string
}

func (h *hinted) Error() string { return h.err.Error() + " (" + h.hint + ")" }
func (h *hinted) Unwrap() error { return h.err }
