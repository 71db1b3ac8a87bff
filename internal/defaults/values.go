// Package defaults holds session defaults: values such as the project directory,
// scheme or simulator that an agent sets once and every session-aware tool then
// uses, so it need not repeat them on each call.
//
// Defaults live in named profiles ("default" unless another is chosen); profiles are
// isolated from each other, and exactly one is active. Merge combines a tool call's
// explicit arguments with the active profile under the rules in merge.go: explicit
// arguments always win.
//
// A Store is safe for concurrent use.
package defaults

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"

	"github.com/triage-dev/triage/internal/duration"
)

// Values are the session-managed fields. Every field is optional; an empty value
// means "not set". The JSON names are the tool argument names.
type Values struct {
	ProjectDir    string            `json:"project_dir,omitempty" yaml:"project_dir,omitempty"`
	WorkspacePath string            `json:"workspace_path,omitempty" yaml:"workspace_path,omitempty" jsonschema:".xcworkspace (or project_path)"`
	ProjectPath   string            `json:"project_path,omitempty" yaml:"project_path,omitempty" jsonschema:".xcodeproj (or workspace_path)"`
	Scheme        string            `json:"scheme,omitempty" yaml:"scheme,omitempty" jsonschema:"Xcode scheme"`
	Configuration string            `json:"configuration,omitempty" yaml:"configuration,omitempty" jsonschema:"e.g. Debug, Release"`
	SimulatorID   string            `json:"simulator_id,omitempty" yaml:"simulator_id,omitempty" jsonschema:"UDID (or simulator_name)"`
	SimulatorName string            `json:"simulator_name,omitempty" yaml:"simulator_name,omitempty" jsonschema:"or simulator_id"`
	DeviceID      string            `json:"device_id,omitempty" yaml:"device_id,omitempty" jsonschema:"physical device id"`
	Platform      string            `json:"platform,omitempty" yaml:"platform,omitempty" jsonschema:"e.g. iOS Simulator, macOS"`
	Toolchain     string            `json:"toolchain,omitempty" yaml:"toolchain,omitempty" jsonschema:"as for build"`
	BuildCommand  []string          `json:"build_command,omitempty" yaml:"build_command,omitempty" jsonschema:"argv"`
	TestCommand   []string          `json:"test_command,omitempty" yaml:"test_command,omitempty" jsonschema:"argv"`
	Env           map[string]string `json:"env,omitempty" yaml:"env,omitempty"`
	TimeoutS      duration.Seconds  `json:"timeout_s,omitempty" yaml:"timeout_s,omitempty"`
	// StallS is a pointer so that 0 (the stall watch off) is a value, not
	// "not set". session_set_defaults accepts it unlisted.
	StallS          *duration.Seconds `json:"stall_s,omitempty" yaml:"stall_s,omitempty" jsonschema:"default 30: end run, build or test as HUNG after this many seconds of no progress; 0 turns it off"`
	DebuggerBackend string            `json:"debugger_backend,omitempty" yaml:"debugger_backend,omitempty" jsonschema:"dap or lldb"`
	Vmlinux         string            `json:"vmlinux,omitempty" yaml:"vmlinux,omitempty" jsonschema:"with debug info, for kernel dumps"`
	SSHHost         string            `json:"ssh_host,omitempty" yaml:"ssh_host,omitempty" jsonschema:"ssh host to work on (paths are its own)"`
	// Workflows are more workflows (device, macos, ui...) whose tools the
	// session sees while this profile is active.
	Workflows []string `json:"workflows,omitempty" yaml:"workflows,omitempty" jsonschema:"workflows whose tools this profile lists too (device, macos...)"`
}

// Keys lists the JSON names of every session-managed field, in declaration order.
func Keys() []string { return keys() }

var keys = sync.OnceValue(func() []string {
	t := reflect.TypeFor[Values]()
	out := make([]string, 0, t.NumField())
	for i := range t.NumField() {
		out = append(out, jsonName(t.Field(i)))
	}
	return out
})

func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	return name
}

// IsKey reports whether name is a session-managed field.
func IsKey(name string) bool {
	for _, k := range keys() {
		if k == name {
			return true
		}
	}
	return false
}

// CheckKeys returns an error naming every entry of names that is not a
// session-managed field, and the valid ones.
func CheckKeys(names []string) error {
	var bad []string
	for _, n := range names {
		if !IsKey(n) {
			bad = append(bad, n)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return fmt.Errorf("unknown default %s; valid keys: %s", quoteList(bad), strings.Join(keys(), ", "))
}

// Map returns the set fields as a map keyed by JSON name.
func (v Values) Map() map[string]any {
	m, err := toMap(v)
	if err != nil {
		// Values holds only strings, string slices, a string map and a float:
		// marshalling cannot fail.
		panic(err)
	}
	return m
}

// FromMap builds Values from a map keyed by JSON name. Unknown keys are rejected.
func FromMap(m map[string]any) (Values, error) {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	if err := CheckKeys(names); err != nil {
		return Values{}, err
	}
	var v Values
	if err := fromMap(m, &v); err != nil {
		return Values{}, err
	}
	return v, nil
}

// IsZero reports whether no field is set.
func (v Values) IsZero() bool {
	rv := reflect.ValueOf(v)
	for i := range rv.NumField() {
		f := rv.Field(i)
		switch f.Kind() {
		case reflect.Slice, reflect.Map:
			if f.Len() > 0 {
				return false
			}
		default:
			if !f.IsZero() {
				return false
			}
		}
	}
	return true
}

// overlay returns v with every set field of o written over it; Env is merged key
// by key.
func (v Values) overlay(o Values) Values {
	env := v.Env
	m := v.Map()
	for k, val := range o.Map() {
		m[k] = val
	}
	var out Values
	if err := fromMap(m, &out); err != nil {
		panic(err) // both sides came from Values
	}
	if len(env) > 0 || len(o.Env) > 0 {
		out.Env = make(map[string]string, len(env)+len(o.Env))
		for k, val := range env {
			out.Env[k] = val
		}
		for k, val := range o.Env {
			out.Env[k] = val
		}
	}
	return out
}

// toMap converts a struct with omitempty JSON tags into a map of its non-empty
// fields, dropping nulls and empty strings, slices and maps.
func toMap(v any) (map[string]any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	for k, val := range m {
		if isEmpty(val) {
			delete(m, k)
		}
	}
	return m, nil
}

func fromMap(m map[string]any, dst any) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, dst)
}

// isEmpty reports whether a decoded JSON value counts as "not provided".
func isEmpty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == ""
	case []any:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	}
	return false
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}
