package run

import (
	"context"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/toolchain"
)

// buildParams are the build tool's arguments. project_dir, toolchain,
// build_command, configuration, env and timeout_s are session-managed.
type buildParams struct {
	ProjectDir    string            `json:"project_dir,omitempty" jsonschema:"project directory (session default)"`
	Toolchain     string            `json:"toolchain,omitempty" jsonschema:"go, cargo, cmake, make or swift (session default; detected from the project when unset)"`
	Command       any               `json:"command,omitempty" jsonschema:"argv array replacing the detected command, e.g. [\"make\",\"-C\",\"src\"]; no shell"`
	BuildCommand  any               `json:"build_command,omitempty" jsonschema:"session default for command (argv array)"`
	Configuration string            `json:"configuration,omitempty" jsonschema:"debug or release (cargo profile, CMAKE_BUILD_TYPE)"`
	Targets       []string          `json:"targets,omitempty" jsonschema:"what to build: go packages, cargo packages, cmake/make targets"`
	Args          []string          `json:"args,omitempty" jsonschema:"extra arguments for the build command"`
	Jobs          int               `json:"jobs,omitempty" jsonschema:"parallel jobs (default: the tool's)"`
	Level         string            `json:"level,omitempty" jsonschema:"log detail: minimal, standard (default) or verbose"`
	Env           map[string]string `json:"env,omitempty" jsonschema:"environment overrides (merged with the session's env)"`
	TimeoutS      float64           `json:"timeout_s,omitempty" jsonschema:"time limit in seconds for the whole build (default: the configured run timeout)"`
}

func (p buildParams) request() planRequest {
	return planRequest{
		kind: toolchain.StepBuild, projectDir: p.ProjectDir, toolchain: p.Toolchain,
		command: p.Command, commandField: "command", sessionCommand: p.BuildCommand, sessionField: "build_command",
		options: toolchain.Options{
			Configuration: p.Configuration, Targets: p.Targets, Args: p.Args, Jobs: p.Jobs, Env: p.Env,
		},
		level: p.Level, timeoutS: p.TimeoutS,
	}
}

func (h *handler) build(ctx context.Context, c *catalog.Call, in buildParams) (catalog.Result[BuildTestOutput], error) {
	return h.buildOrTest(ctx, c, in.request())
}
