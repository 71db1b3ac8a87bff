package catalog

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

type argsProbe struct {
	ProjectDir  string            `json:"project_dir,omitempty"`
	Program     string            `json:"program"`
	TimeoutS    float64           `json:"timeout_s,omitempty"`
	Jobs        int               `json:"jobs,omitempty"`
	Args        []string          `json:"args,omitempty"`
	Env         map[string]string `json:"env,omitempty"`
	Verbose     bool              `json:"verbose,omitempty"`
	SessionID   string            `json:"session_id,omitempty"`
	SimulatorID string            `json:"simulator_id,omitempty"`
	Hidden      string            `json:"hidden_field,omitempty"`
}

func argsProbeTool() *Tool {
	return New("probe", "probe", Annotations{}, func(ctx context.Context, c *Call, in argsProbe) (Result[struct{}], error) {
		return Result[struct{}]{Text: "ok"}, nil
	}).Unlisted("", "hidden_field")
}

func TestArgumentErrorsTeach(t *testing.T) {
	tests := []struct {
		name, args string
		want       []string
	}{
		{"unknown argument: a word of the right one", `{"program":"p","dir":"x"}`,
			[]string{`unknown argument "dir": did you mean "project_dir"?`, "probe takes: project_dir, program, timeout_s, jobs, args, env, verbose, session_id, simulator_id, hidden_field"}},
		{"unknown argument: a typo", `{"program":"p","timout_s":3}`, []string{`did you mean "timeout_s"?`}},
		{"unknown argument: a transposition", `{"porgram":"p"}`, []string{`did you mean "program"?`}},
		{"unknown argument: another spelling", `{"program":"p","projectDir":"x"}`, []string{`did you mean "project_dir"?`}},
		{"unknown argument: a prefix", `{"program":"p","timeout":3}`, []string{`did you mean "timeout_s"?`}},
		{"unknown argument: nothing near", `{"program":"p","zzz":1}`, []string{`unknown argument "zzz"; probe takes: project_dir`}},
		{"wrong type: number", `{"program":"p","timeout_s":"ten"}`, []string{`timeout_s: expected a number, got "ten"`}},
		{"wrong type: integer", `{"program":"p","jobs":1.5}`, []string{`jobs: expected an integer, got 1.5`}},
		{"wrong type: array element", `{"program":"p","args":["a",2]}`, []string{`args: expected an array of strings, got ["a",2]`}},
		{"wrong type: array", `{"program":"p","args":"a b"}`, []string{`args: expected an array of strings, got "a b"`}},
		{"wrong type: object value", `{"program":"p","env":{"A":1}}`, []string{`env: expected an object of strings, got {"A":1}`}},
		{"wrong type: boolean", `{"program":"p","verbose":"yes"}`, []string{`verbose: expected true or false, got "yes"`}},
		{"missing required", `{}`, []string{`missing required argument "program" (a string)`}},
		{"several problems", `{"dir":"x","jobs":"2"}`, []string{"invalid arguments:\n- ", `unknown argument "dir"`, `jobs: expected an integer, got "2"`, `missing required argument "program"`}},
		{"not an object", `["program"]`, []string{`arguments must be a JSON object, got ["program"]`}},
	}
	tool := argsProbeTool()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tool.decode(json.RawMessage(tt.args), new(argsProbe))
			if err == nil {
				t.Fatalf("%s was accepted", tt.args)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\nlacks %q", err, w)
				}
			}
		})
	}
	if err := tool.decode(json.RawMessage(`{"program":"p","jobs":2,"timeout_s":1.5,"hidden_field":"h","env":{"A":"b"},"args":["x"]}`), new(argsProbe)); err != nil {
		t.Errorf("good arguments refused: %v", err)
	}
}

func TestMissingSessionKeyNamesTheDefault(t *testing.T) {
	type in struct {
		ProjectDir string `json:"project_dir"`
	}
	tool := New("probe", "probe", Annotations{}, func(ctx context.Context, c *Call, in in) (Result[struct{}], error) {
		return Result[struct{}]{}, nil
	})
	err := tool.decode(json.RawMessage(`{}`), new(in))
	if err == nil || !strings.Contains(err.Error(), `session_set_defaults {"project_dir": ...}`) {
		t.Errorf("err = %v, want it to name the session default", err)
	}
}

func TestNearest(t *testing.T) {
	names := []string{"project_dir", "session_id", "simulator_id", "output_id", "timeout_s", "scheme", "env", "cwd"}
	for name, want := range map[string]string{
		"dir": "project_dir", "project": "project_dir", "PROJECT-DIR": "project_dir", "shceme": "scheme",
		"id": "output_id", "timeout": "timeout_s", "envs": "env", "sesion_id": "session_id",
		"x": "", "path": "", "program": "",
	} {
		if got := nearest(name, names); got != want {
			t.Errorf("nearest(%q) = %q, want %q", name, got, want)
		}
	}
}

// Misspelt suggests a tool name only for a close misspelling, never for a
// word or prefix of one.
func TestMisspelt(t *testing.T) {
	names := []string{"debug_attach", "debug_detach", "debug_launch", "test", "run", "dump_open"}
	for name, want := range map[string]string{
		"debug_atach": "debug_attach", "DEBUG-ATTACH": "debug_attach", "debug_detatch": "debug_detach", "tset": "test", "rnu": "run", "xyz": "",
		"debug": "", "dump": "", "debug_foo": "", "": "", "zzz_qqq": "",
	} {
		if got := Misspelt(name, names); got != want {
			t.Errorf("Misspelt(%q) = %q, want %q", name, got, want)
		}
	}
}
