package run

import (
	"context"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/duration"
	"github.com/triage-dev/triage/internal/toolchain"
)

// buildParams are the build tool's arguments. project_dir, toolchain,
// build_command, configuration, env and timeout_s are session-managed.
type buildParams struct {
	ProjectDir    string            `json:"project_dir,omitempty"`
	Toolchain     string            `json:"toolchain,omitempty" jsonschema:"go cargo cmake meson autotools make swift (detected)"`
	Command       any               `json:"command,omitempty" jsonschema:"argv (no shell) to run instead"`
	BuildCommand  any               `json:"build_command,omitempty" jsonschema:"session default for command (argv array)"`
	Configuration string            `json:"configuration,omitempty" jsonschema:"debug or release"`
	Targets       []string          `json:"targets,omitempty" jsonschema:"packages or targets"`
	Args          []string          `json:"args,omitempty"`
	ConfigureArgs []string          `json:"configure_args,omitempty" jsonschema:"cmake, meson setup or configure options (-DFOO=ON, -Dfoo=true, --enable-foo)"`
	Jobs          int               `json:"jobs,omitempty"`
	Level         string            `json:"level,omitempty" jsonschema:"minimal, standard or verbose"`
	Env           map[string]string `json:"env,omitempty"`
	TimeoutS      duration.Seconds  `json:"timeout_s,omitempty"`
	SSHHost       string            `json:"ssh_host,omitempty" jsonschema:"ssh host to run on (its paths)"`
	Clean         bool              `json:"clean,omitempty" jsonschema:"swift: swift package clean first"`
	StallS        *duration.Seconds `json:"stall_s,omitempty" jsonschema:"default 30: end as HUNG after this many seconds with no output, no CPU time and every thread blocked; 0 turns it off"`
}

func (p buildParams) request() planRequest {
	return planRequest{
		kind: toolchain.StepBuild, projectDir: p.ProjectDir, toolchain: p.Toolchain,
		command: p.Command, commandField: "command", sessionCommand: p.BuildCommand, sessionField: "build_command",
		options: toolchain.Options{
			Configuration: p.Configuration, Targets: p.Targets, Args: p.Args, ConfigureArgs: p.ConfigureArgs,
			Jobs: p.Jobs, Env: p.Env, Clean: p.Clean,
		},
		level: p.Level, timeoutS: p.TimeoutS, sshHost: p.SSHHost,
		stallS: p.StallS,
	}
}

func (h *handler) build(ctx context.Context, c *catalog.Call, in buildParams) (catalog.Result[BuildTestOutput], error) {
	return h.buildOrTest(ctx, c, in.request())
}
