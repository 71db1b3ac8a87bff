package dap

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/triage-dev/triage/internal/debugger"
	"github.com/triage-dev/triage/internal/interactive"
)

// flavor holds what differs between adapters: the launch and attach
// argument shapes and how a raw debugger command is passed through evaluate.
type flavor struct {
	kind    string // KindLLDB, KindDlv or KindGDB
	launch  func(debugger.LaunchSpec) map[string]any
	attach  func(debugger.AttachSpec) map[string]any
	core    func(debugger.CoreSpec) (command string, args map[string]any, err error)
	rawExpr func(command string) string
	// dialect is the command language of a raw command, for refusing one
	// that would read the adapter's input (interactive.Check); dlv has none.
	dialect interactive.Dialect
}

func flavorFor(kind string) flavor {
	switch kind {
	case KindDlv:
		return dlvFlavor()
	case KindGDB:
		return flavor{
			kind: KindGDB,
			launch: func(s debugger.LaunchSpec) map[string]any {
				return map[string]any{"program": s.Program, "args": nonNil(s.Args), "cwd": s.Dir,
					"env": s.Env, "stopAtBeginningOfMainSubprogram": s.StopOnEntry}
			},
			attach: func(s debugger.AttachSpec) map[string]any {
				return map[string]any{"pid": s.Pid, "program": s.Program}
			},
			core: func(debugger.CoreSpec) (string, map[string]any, error) {
				return "", nil, fmt.Errorf("core files over gdb's DAP: %w", debugger.ErrUnsupported)
			},
			rawExpr: func(c string) string { return c }, // gdb's repl context runs CLI commands
			dialect: interactive.GDB,
		}
	default: // lldb-dap / lldb-vscode
		return flavor{
			kind: KindLLDB,
			launch: func(s debugger.LaunchSpec) map[string]any {
				return map[string]any{"program": s.Program, "args": nonNil(s.Args), "cwd": s.Dir,
					"env": envList(s.Env), "stopOnEntry": s.StopOnEntry}
			},
			attach: func(s debugger.AttachSpec) map[string]any {
				m := map[string]any{"pid": s.Pid}
				if s.StayStopped {
					m["stopOnEntry"] = true // resumed after configurationDone otherwise
				}
				if s.Program != "" {
					m["program"] = s.Program
				}
				return m
			},
			core: func(s debugger.CoreSpec) (string, map[string]any, error) {
				return "attach", map[string]any{"program": s.Program, "coreFile": s.Core}, nil
			},
			// lldb-vscode evaluates repl input as an expression unless it
			// starts with the command escape, a backtick.
			rawExpr: func(c string) string { return "`" + strings.TrimPrefix(c, "`") },
			dialect: interactive.LLDB,
		}
	}
}

// dlvFlavor is dlv dap's: Go's own launch modes, and dlv's terminal
// commands behind "dlv " in the repl context.
func dlvFlavor() flavor {
	return flavor{
		kind: KindDlv,
		launch: func(s debugger.LaunchSpec) map[string]any {
			return map[string]any{"mode": "exec", "program": s.Program, "args": nonNil(s.Args),
				"cwd": s.Dir, "env": s.Env, "stopOnEntry": s.StopOnEntry}
		},
		attach: func(s debugger.AttachSpec) map[string]any {
			return map[string]any{"mode": "local", "processId": s.Pid}
		},
		core: func(s debugger.CoreSpec) (string, map[string]any, error) {
			return "launch", map[string]any{"mode": "core", "program": s.Program, "coreFilePath": s.Core}, nil
		},
		// dlv runs its own terminal commands from the repl when they
		// start with "dlv ".
		rawExpr: func(c string) string { return "dlv " + strings.TrimPrefix(c, "dlv ") },
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func envList(env map[string]string) []string {
	out := make([]string, 0, len(env))
	for _, k := range slices.Sorted(maps.Keys(env)) {
		out = append(out, k+"="+env[k])
	}
	return out
}
