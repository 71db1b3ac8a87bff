package run

import (
	"context"
	"strconv"
	"strings"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/duration"
	"github.com/triage-dev/triage/internal/pipeline"
	"github.com/triage-dev/triage/internal/toolchain"
)

// testParams are the test tool's arguments. project_dir, toolchain,
// test_command, configuration, env and timeout_s are session-managed.
type testParams struct {
	ProjectDir    string            `json:"project_dir,omitempty"`
	Toolchain     string            `json:"toolchain,omitempty" jsonschema:"go cargo cmake meson autotools make swift (detected)"`
	Command       any               `json:"command,omitempty" jsonschema:"argv (no shell) to run instead"`
	TestCommand   any               `json:"test_command,omitempty" jsonschema:"session default for command (argv array)"`
	Configuration string            `json:"configuration,omitempty" jsonschema:"debug or release"`
	Targets       []string          `json:"targets,omitempty" jsonschema:"packages or targets"`
	Run           []string          `json:"run,omitempty" jsonschema:"only matching tests (go -run, cargo filter, ctest -R)"`
	Skip          []string          `json:"skip,omitempty" jsonschema:"go -skip, cargo --skip, ctest -E"`
	Args          []string          `json:"args,omitempty" jsonschema:"runner arguments (cargo: after -- to the test binaries)"`
	ConfigureArgs []string          `json:"configure_args,omitempty" jsonschema:"cmake, meson setup or configure options (-DFOO=ON, -Dfoo=true, --enable-foo)"`
	Jobs          int               `json:"jobs,omitempty"`
	Level         string            `json:"level,omitempty" jsonschema:"minimal, standard or verbose"`
	Env           map[string]string `json:"env,omitempty"`
	TimeoutS      duration.Seconds  `json:"timeout_s,omitempty"`
	SSHHost       string            `json:"ssh_host,omitempty" jsonschema:"ssh host to run on (its paths)"`
	Coverage      string            `json:"coverage,omitempty" jsonschema:"line coverage of files under this path (\".\": all)"`
	Memcheck      *bool             `json:"memcheck,omitempty" jsonschema:"default true: rerun the one test whose crash looks like memory corruption under valgrind memcheck"`
	Check         string            `json:"check,omitempty" jsonschema:"build and run the tests with a checker: memory (ASan; go -asan), leaks (ASan+LSan), undefined (UBSan), thread (TSan; go -race); go, cmake, meson, autotools"`
	StallS        *duration.Seconds `json:"stall_s,omitempty" jsonschema:"default 30: end as HUNG after this many seconds with no output, no CPU time and every thread blocked; 0 turns it off"`
	Repeat        int               `json:"repeat,omitempty" jsonschema:"run the tests this many times (at most 1000; build once): FLAKY with each distinct failure, or passed or failed N of N; timeout_s bounds the whole"`
	UntilFail     bool              `json:"until_fail,omitempty" jsonschema:"with repeat: stop at the first run that fails"`
	// The repeat's stress options (repeat.go).
	Parallel int   `json:"parallel,omitempty" jsonschema:"with repeat: run this many copies of the tests at once"`
	CPU      []int `json:"cpu,omitempty" jsonschema:"with repeat, go: go test -cpu values (GOMAXPROCS), each run once per value"`
	Race     bool  `json:"race,omitempty" jsonschema:"with repeat, go: go test -race"`
}

func (p testParams) request() planRequest {
	return planRequest{
		kind: toolchain.StepTest, projectDir: p.ProjectDir, toolchain: p.Toolchain,
		command: p.Command, commandField: "command", sessionCommand: p.TestCommand, sessionField: "test_command",
		options: toolchain.Options{Configuration: p.Configuration, Targets: p.Targets, Run: p.Run, Skip: p.Skip,
			Args: p.Args, ConfigureArgs: p.ConfigureArgs, Jobs: p.Jobs, Env: p.Env, Coverage: p.Coverage != "",
			Check: strings.ToLower(strings.TrimSpace(p.Check))},
		level: p.Level, timeoutS: p.TimeoutS, sshHost: p.SSHHost, coverage: p.Coverage,
		memcheckOff: (p.Memcheck != nil && !*p.Memcheck) || p.Check != "", // a sanitizer build checks the test itself
		stallS:      p.StallS,
		repeat:      p.repeat(),
	}
}

func (h *handler) test(ctx context.Context, c *catalog.Call, in testParams) (catalog.Result[BuildTestOutput], error) {
	if in.Repeat != 0 || in.UntilFail || in.Parallel != 0 || len(in.CPU) > 0 || in.Race {
		return h.repeatTests(ctx, c, in.request()) // repeat.go
	}
	return h.buildOrTest(ctx, c, in.request())
}

// repeat is the call's repeat with its stress options.
func (p testParams) repeat() pipeline.Repeat {
	rp := pipeline.Repeat{Times: p.Repeat, UntilFail: p.UntilFail, Parallel: p.Parallel, Race: p.Race}
	for _, n := range p.CPU {
		rp.CPU = append(rp.CPU, strconv.Itoa(n))
	}
	return rp
}
