package main

import (
	"bytes"
	"context"
	"reflect"
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
		{[]string{"test"}, `triage session_set_defaults --project_dir `},
		{[]string{"run"}, `missing required argument "program" (a string)`},
	}
	for _, tt := range tests {
		code, out := callCLI(t, tt.args...)
		if code != exitUsage || !strings.Contains(out, tt.want) {
			t.Errorf("triage call %s: exit %d, output %q; want exit %d and %q", strings.Join(tt.args, " "), code, out, exitUsage, tt.want)
		}
	}
}

// A JSON array is an array argument's value, and command's (whose schema
// gives no type) too: `--command '["true"]'` runs true, where it was refused
// as "a string". A malformed array or object is refused by the CLI, naming
// the argument and what is wrong; a JSON object of arguments given without
// --json is pointed to --json.
func TestCallJSONValues(t *testing.T) {
	t.Setenv("TRIAGE_CONFIG", "")
	dir := t.TempDir()
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"build", "--project_dir", dir, "--command", `["true"]`}, exitOK, "BUILD SUCCEEDED"},
		{[]string{"build", "--project_dir", dir, "--command", ` [ "sh", "-c", "exit 0" ] `}, exitOK, "BUILD SUCCEEDED"},
		{[]string{"test", "--project_dir", dir, "--command", `["meson","test","-C"`}, exitUsage,
			`--command is not a valid JSON array (unexpected end of JSON input)`},
		{[]string{"test", "--project_dir", dir, "--run", `["a",]`}, exitUsage,
			`--run is not a valid JSON array (invalid character ']' looking for beginning of value)`},
		{[]string{"run", "--program", "/bin/true", "--env", `{"A": 1`}, exitUsage,
			`--env is not a valid JSON object (unexpected end of JSON input)`},
		{[]string{"run", "--program", "/bin/true", "--env", `{"A": "1"}`}, exitOK, ""},
		// A JSON object of arguments is taken as it is, as --json's value,
		// once: a suggested call pasted from an agent's answer runs.
		{[]string{"build", `{"project_dir": "` + dir + `", "command": ["true"]}`}, exitOK, "BUILD SUCCEEDED"},
		{[]string{"build", `{"project_dir": "."}`, `{"command": ["true"]}`}, exitUsage,
			`unexpected argument "{\"command\": [\"true\"]}": give one JSON object of arguments (or --json '{...}')`},
		{[]string{"build", "run"}, exitUsage, `tool arguments are --KEY VALUE pairs, or one JSON object (--json '{...}')`},
		// A --KEY with no value is a boolean's true, and no other's: `run
		// --program` alone ran the program "true" and succeeded.
		{[]string{"run", "--program"}, exitUsage, `--program needs a value: --program VALUE`},
		{[]string{"run", "--program", "--core_dumps"}, exitUsage, `--program needs a value`},
		{[]string{"run", "--core_dumps", "--program", "/bin/true"}, exitOK, "SUCCEEDED"},
	}
	for _, tt := range tests {
		code, out := callCLI(t, tt.args...)
		if code != tt.code || !strings.Contains(out, tt.want) {
			t.Errorf("triage call %s: exit %d, output %q; want exit %d and %q", strings.Join(tt.args, " "), code, out, tt.code, tt.want)
		}
	}
}

// convertArg reads a value by its argument's schema type: JSON for arrays,
// objects and arguments of any type, only when it is meant as JSON.
func TestConvertArg(t *testing.T) {
	tests := []struct {
		typ, raw string
		want     any // nil: not of the type, passed on as given
		err      string
	}{
		{"array", `["meson","test","-C","build"]`, []any{"meson", "test", "-C", "build"}, ""},
		{"array", `[]`, []any{}, ""},
		{"array", `TestX`, []any{"TestX"}, ""},
		{"array", `[Tt]est`, []any{"[Tt]est"}, ""}, // a pattern, not JSON
		{"array", `[[:digit:]]+`, []any{"[[:digit:]]+"}, ""},
		{"array", `["a"`, nil, "is not a valid JSON array (unexpected end of JSON input)"},
		{"array", `{"a": 1}`, nil, ""},
		{"", `["make","check"]`, []any{"make", "check"}, ""},
		{"", `make check`, "make check", ""},
		{"", `true`, "true", ""},
		{"", `["make"`, nil, "is not a valid JSON array"},
		{"", `{"a":`, nil, "is not a valid JSON object"},
		{"object", `{"A": "1"}`, map[string]any{"A": "1"}, ""},
		{"object", `{A`, nil, ""},
		{"object", `[1]`, nil, ""},
		{"object", `{"A":`, nil, "is not a valid JSON object"},
		{"integer", `12`, int64(12), ""},
		{"integer", `ten`, nil, ""},
		{"string", `["a"]`, `["a"]`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.typ+" "+tt.raw, func(t *testing.T) {
			v, ok, err := convertArg(tt.typ, tt.raw)
			switch {
			case tt.err != "":
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("err %v, want %q", err, tt.err)
				}
			case err != nil:
				t.Errorf("err %v", err)
			case tt.want == nil && ok:
				t.Errorf("got %#v, want it passed on as given", v)
			case tt.want != nil && (!ok || !reflect.DeepEqual(v, tt.want)):
				t.Errorf("got %#v, %v; want %#v", v, ok, tt.want)
			}
		})
	}
}

// A misspelt tool name gets a did-you-mean, as a misspelt argument does; a
// name close to none gets none. Both are usage errors.
func TestCallUnknownToolDidYouMean(t *testing.T) {
	t.Setenv("TRIAGE_CONFIG", "")
	t.Setenv("TRIAGE_DAEMON", "off")
	for _, tt := range []struct{ tool, want string }{
		{"debug_atach", `unknown tool "debug_atach": did you mean "debug_attach"?`},
		{"tset", `unknown tool "tset": did you mean "test"?`},
		{"zzz_qqq", `unknown tool "zzz_qqq"; `},
	} {
		code, out := callCLI(t, tt.tool)
		if code != exitUsage || !strings.Contains(out, tt.want) {
			t.Errorf("%s: exit %d, want %d and %q: %.300s", tt.tool, code, exitUsage, tt.want, out)
		}
		code, out = callCLI(t, tt.tool, "--project_dir", ".")
		if code != exitUsage || !strings.Contains(out, tt.want) {
			t.Errorf("%s --project_dir .: exit %d, want %d and %q: %.300s", tt.tool, code, exitUsage, tt.want, out)
		}
	}
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"debug_atach", "--help"}, strings.NewReader(""), &out, &errb); code != exitUsage || !strings.Contains(errb.String(), `did you mean "debug_attach"?`) {
		t.Errorf("debug_atach --help: exit %d: %s", code, errb.String())
	}
}
