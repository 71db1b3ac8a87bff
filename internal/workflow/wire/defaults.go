package wire

import (
	"github.com/triage-dev/triage/internal/defaults"
	"github.com/triage-dev/triage/internal/duration"
)

// Defaults are a profile's session defaults, as session_show_defaults and
// the other session tools return them (secret values redacted).
type Defaults struct {
	ProjectDir      string            `json:"project_dir,omitempty"`
	WorkspacePath   string            `json:"workspace_path,omitempty" jsonschema:".xcworkspace (or project_path)"`
	ProjectPath     string            `json:"project_path,omitempty" jsonschema:".xcodeproj (or workspace_path)"`
	Scheme          string            `json:"scheme,omitempty" jsonschema:"Xcode scheme"`
	Configuration   string            `json:"configuration,omitempty" jsonschema:"e.g. Debug, Release"`
	SimulatorID     string            `json:"simulator_id,omitempty" jsonschema:"UDID (or simulator_name)"`
	SimulatorName   string            `json:"simulator_name,omitempty" jsonschema:"or simulator_id"`
	DeviceID        string            `json:"device_id,omitempty" jsonschema:"physical device id"`
	Platform        string            `json:"platform,omitempty" jsonschema:"e.g. iOS Simulator, macOS"`
	Toolchain       string            `json:"toolchain,omitempty" jsonschema:"go, cargo, cmake, meson, autotools, make or swift"`
	BuildCommand    []string          `json:"build_command,omitempty" jsonschema:"argv"`
	TestCommand     []string          `json:"test_command,omitempty" jsonschema:"argv"`
	Env             map[string]string `json:"env,omitempty"`
	TimeoutS        duration.Seconds  `json:"timeout_s,omitempty"`
	StallS          *duration.Seconds `json:"stall_s,omitempty" jsonschema:"default 30: end run, build or test as HUNG after this many seconds of no progress; 0 turns it off"`
	DebuggerBackend string            `json:"debugger_backend,omitempty" jsonschema:"dap or lldb"`
	Vmlinux         string            `json:"vmlinux,omitempty" jsonschema:"with debug info, for kernel dumps"`
	SSHHost         string            `json:"ssh_host,omitempty" jsonschema:"ssh host to work on (paths are its own)"`
	Workflows       []string          `json:"workflows,omitempty"`
}

// DefaultsOf converts session defaults.
func DefaultsOf(v defaults.Values) Defaults { return Defaults(v) }
