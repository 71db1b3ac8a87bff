package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/config"
	"github.com/triage-dev/triage/internal/server"
	"github.com/triage-dev/triage/internal/services"
)

// callCLI runs `triage call` with an in-memory store and returns its exit
// status and everything it printed.
func callCLI(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var out bytes.Buffer
	argv := append([]string{"call"}, args[0], "--store", ":memory:", "--log-level", "error")
	code := run(context.Background(), append(argv, args[1:]...), strings.NewReader(""), &out, &out)
	return code, out.String()
}

// Every enabled tool answers an unknown --KEY with the names it takes, as a
// usage error (exit 2).
func TestCallUnknownArgumentEveryTool(t *testing.T) {
	t.Setenv("TRIAGE_CONFIG", "")
	svc, err := services.New(&config.Config{}, nil, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	srv, err := server.New(svc, server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range srv.Selection.Tools {
		code, out := callCLI(t, tool.Name, "--no_such_argument", "1")
		if code != exitUsage {
			t.Errorf("%s: exit %d, want %d: %.300s", tool.Name, code, exitUsage, out)
		}
		if !strings.Contains(out, `unknown argument "no_such_argument"`) {
			t.Errorf("%s: does not name the unknown argument: %.300s", tool.Name, out)
		}
		for name := range tool.InputSchema().Properties {
			if !strings.Contains(out, name) {
				t.Errorf("%s: does not list %q: %.300s", tool.Name, name, out)
			}
		}
	}
}

func TestCallArgumentErrorsTeach(t *testing.T) {
	t.Setenv("TRIAGE_CONFIG", "")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"build", "--dir", "."}, `unknown argument "dir": did you mean "project_dir"?`},
		{[]string{"run", "--program", "/bin/true", "--timeout_s", "ten"}, `timeout_s: expected a number, got "ten"`},
		{[]string{"run", "--program", "/bin/true", "--env", "{A"}, `env: expected an object of strings, got "{A"`},
		{[]string{"test"}, `session_set_defaults {"project_dir": `},
		{[]string{"run"}, `missing required argument "program" (a string)`},
	}
	for _, tt := range tests {
		code, out := callCLI(t, tt.args...)
		if code != exitUsage || !strings.Contains(out, tt.want) {
			t.Errorf("triage call %s: exit %d, output %q; want exit %d and %q", strings.Join(tt.args, " "), code, out, exitUsage, tt.want)
		}
	}
}
