package server

import (
	"fmt"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/catalog"
)

// TestTimeoutOneRule calls every tool that takes timeout_s, those of
// workflows unavailable here included, with a timeout over its limit: each
// refuses it as a usage error in the same words, before doing any work. The
// limit is a day, an hour for one debugger or engine command.
func TestTimeoutOneRule(t *testing.T) {
	cs, tools := serveEveryTool(t, func(tool *catalog.Tool) bool { return tool.InputSchema().Properties["timeout_s"] != nil })
	commands := map[string]bool{"debug_command": true, "dump_command": true, "dump_scripts": true}
	if len(tools) < 8 {
		t.Fatalf("only %d tools take timeout_s", len(tools))
	}
	for _, tool := range tools {
		limit, over := 86400, 90000
		if commands[tool.Name] {
			limit, over = 3600, 4000
		}
		args := requiredArgs(tool)
		// What session defaults would supply, so that the call gets as far
		// as its handler.
		for k, v := range map[string]any{"project_dir": t.TempDir(), "scheme": "App", "project_path": "App.xcodeproj", "simulator_id": "00000000-0000-0000-0000-000000000000"} {
			if tool.InputSchema().Properties[k] != nil {
				args[k] = v
			}
		}
		args["timeout_s"] = over
		res, text := callText(t, cs, tool.Name, args)
		want := fmt.Sprintf("timeout_s %d: use a number of seconds between 0 and %d", over, limit)
		if !res.IsError || res.Meta[catalog.OutcomeKey] != string(catalog.UsageError) || !strings.Contains(text, want) {
			t.Errorf("%s {timeout_s: %d}: IsError=%v outcome=%v %q; want a usage error %q", tool.Name, over, res.IsError, res.Meta[catalog.OutcomeKey], text, want)
		}
		args["timeout_s"] = -1
		if res, text := callText(t, cs, tool.Name, args); !strings.Contains(text, fmt.Sprintf("timeout_s -1: use a number of seconds between 0 and %d", limit)) {
			t.Errorf("%s {timeout_s: -1}: IsError=%v %q", tool.Name, res.IsError, text)
		}
	}
}

// requiredArgs fills a tool's required arguments with values of their type.
func requiredArgs(tool *catalog.Tool) map[string]any {
	args := map[string]any{}
	sch := tool.InputSchema()
	for _, name := range sch.Required {
		switch p := sch.Properties[name]; p.Type {
		case "array":
			args[name] = []any{}
		case "object":
			args[name] = map[string]any{}
		case "number", "integer":
			args[name] = 1
		case "boolean":
			args[name] = false
		default:
			args[name] = "x"
		}
	}
	return args
}

// The other duration arguments follow the same rule, each with its own
// maximum.
func TestDurationArgumentsOneRule(t *testing.T) {
	srv, _ := New(newServices(t, nil), Options{})
	cs := connect(t, srv, nil)
	for _, tt := range []struct {
		tool  string
		args  map[string]any
		limit int
	}{
		{"process_output", map[string]any{"id": "p1", "wait_s": 61.5}, 60},
		{"process_stop", map[string]any{"id": "p1", "grace_s": 601}, 600},
		{"debug_continue", map[string]any{"wait_s": -2}, 86400},
		{"debug_step", map[string]any{"wait_s": 90000}, 86400},
		{"debug_attach", map[string]any{"program": "/bin/true", "wait_s": -1}, 86400},
	} {
		res, text := callText(t, cs, tt.tool, tt.args)
		var name string
		var v any
		for k, x := range tt.args {
			if strings.HasSuffix(k, "_s") {
				name, v = k, x
			}
		}
		want := fmt.Sprintf("%s %v: use a number of seconds between 0 and %d", name, v, tt.limit)
		if !res.IsError || res.Meta[catalog.OutcomeKey] != string(catalog.UsageError) || !strings.Contains(text, want) {
			t.Errorf("%s %v: IsError=%v outcome=%v %q; want a usage error %q", tt.tool, tt.args, res.IsError, res.Meta[catalog.OutcomeKey], text, want)
		}
	}
}
