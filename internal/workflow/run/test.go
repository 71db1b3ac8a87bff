package run

import (
	"context"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/toolchain"
)

// testParams are the test tool's arguments. project_dir, toolchain,
// test_command, configuration, env and timeout_s are session-managed.
type testParams struct {
	ProjectDir    string            `json:"project_dir,omitempty" jsonschema:"project directory (session default)"`
	Toolchain     string            `json:"toolchain,omitempty" jsonschema:"go, cargo, cmake, make or swift (session default; detected from the project when unset)"`
	Command       any               `json:"command,omitempty" jsonschema:"argv array replacing the detected command, e.g. [\"make\",\"check\"]; no shell"`
	TestCommand   any               `json:"test_command,omitempty" jsonschema:"session default for command (argv array)"`
	Configuration string            `json:"configuration,omitempty" jsonschema:"debug or release (cargo profile, CMAKE_BUILD_TYPE)"`
	Targets       []string          `json:"targets,omitempty" jsonschema:"what to test: go packages, cargo packages, cmake targets to build, make targets"`
	Run           []string          `json:"run,omitempty" jsonschema:"run only matching tests: go -run regexps, cargo name substrings, ctest -R regexps"`
	Skip          []string          `json:"skip,omitempty" jsonschema:"skip matching tests (go -skip, cargo --skip, ctest -E)"`
	Args          []string          `json:"args,omitempty" jsonschema:"extra arguments for the test command (cargo: after \"--\" for the harness)"`
	Jobs          int               `json:"jobs,omitempty" jsonschema:"parallel jobs (default: the tool's)"`
	Level         string            `json:"level,omitempty" jsonschema:"log detail: minimal, standard (default) or verbose"`
	Env           map[string]string `json:"env,omitempty" jsonschema:"environment overrides (merged with the session's env)"`
	TimeoutS      float64           `json:"timeout_s,omitempty" jsonschema:"time limit in seconds for building and running the tests (default: the configured run timeout)"`
}

func (p testParams) request() planRequest {
	return planRequest{
		kind: toolchain.StepTest, projectDir: p.ProjectDir, toolchain: p.Toolchain,
		command: p.Command, commandField: "command", sessionCommand: p.TestCommand, sessionField: "test_command",
		options: toolchain.Options{
			Configuration: p.Configuration, Targets: p.Targets, Run: p.Run, Skip: p.Skip,
			Args: p.Args, Jobs: p.Jobs, Env: p.Env,
		},
		level: p.Level, timeoutS: p.TimeoutS,
	}
}

func (h *handler) test(ctx context.Context, c *catalog.Call, in testParams) (catalog.Result[BuildTestOutput], error) {
	return h.buildOrTest(ctx, c, in.request())
}
