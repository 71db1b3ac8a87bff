package xcode

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Action is an xcodebuild build action.
type Action string

const (
	ActionBuild               Action = "build"
	ActionTest                Action = "test"
	ActionBuildForTesting     Action = "build-for-testing"
	ActionTestWithoutBuilding Action = "test-without-building"
	ActionClean               Action = "clean"
)

// Actions lists the actions BuildCommand accepts.
var Actions = []Action{ActionBuild, ActionTest, ActionBuildForTesting, ActionTestWithoutBuilding, ActionClean}

func (a Action) runsTests() bool { return a == ActionTest || a == ActionTestWithoutBuilding }

func (a Action) buildsTests() bool { return a.runsTests() || a == ActionBuildForTesting }

// Request describes an xcodebuild invocation on a workspace or project.
type Request struct {
	// Workspace (.xcworkspace) and Project (.xcodeproj) are exclusive; one
	// is required. Relative paths are made absolute.
	Workspace string `json:"workspace,omitempty"`
	Project   string `json:"project,omitempty"`
	Scheme    string `json:"scheme"`
	// Configuration is passed only when set, so that the scheme's own
	// configuration for the action (Debug for test, Release for archive,
	// or whatever the project chose) is kept otherwise.
	Configuration string      `json:"configuration,omitempty"`
	Destination   Destination `json:"destination,omitzero"`
	// DerivedDataPath defaults to DefaultDerivedDataPath of the workspace
	// or project.
	DerivedDataPath string `json:"derived_data_path,omitempty"`
	// ResultBundlePath is where xcodebuild writes the .xcresult bundle. It
	// must not exist yet: xcodebuild refuses an existing path.
	ResultBundlePath string `json:"result_bundle_path,omitempty"`

	// Test selection, for the test actions only. Identifiers are
	// Target[/Class[/method]] (for Swift Testing, Target/Suite/func()).
	OnlyTesting []string `json:"only_testing,omitempty"`
	SkipTesting []string `json:"skip_testing,omitempty"`
	TestPlan    string   `json:"test_plan,omitempty"`
	// ParallelTesting sets -parallel-testing-enabled YES or NO; nil keeps
	// the scheme's setting.
	ParallelTesting *bool `json:"parallel_testing,omitempty"`

	// Args are extra xcodebuild arguments (build settings such as
	// CODE_SIGNING_ALLOWED=NO), placed before the action.
	Args []string `json:"args,omitempty"`
	// Env overrides xcodebuild's environment; TestEnv is forwarded to the
	// test runner and the app under test, under the TEST_RUNNER_ prefix
	// that xcodebuild strips.
	Env     map[string]string `json:"env,omitempty"`
	TestEnv map[string]string `json:"test_env,omitempty"`
	// Coverage runs the tests with code coverage (-enableCodeCoverage
	// YES), kept in the result bundle.
	Coverage bool `json:"coverage,omitempty"`
}

// RequestError reports a Request that cannot make a valid command.
type RequestError struct {
	Field  string
	Reason string
}

func (e *RequestError) Error() string { return fmt.Sprintf("xcodebuild %s: %s", e.Field, e.Reason) }

// testRunnerPrefix marks the variables xcodebuild passes on to tests.
const testRunnerPrefix = "TEST_RUNNER_"

// BuildCommand returns the xcodebuild command running action for r.
func BuildCommand(action Action, r Request) (Command, error) {
	if !knownAction(action) {
		return Command{}, &RequestError{"action", fmt.Sprintf("unknown action %q (known: %s)", action, joinActions())}
	}
	argv, err := baseArgs(r)
	if err != nil {
		return Command{}, err
	}
	if err := checkTestOptions(action, r); err != nil {
		return Command{}, err
	}
	if action.runsTests() && r.Destination.Generic() {
		return Command{}, &RequestError{"destination", "tests run on a concrete destination: give a simulator, a device or the macOS platform, not a generic platform"}
	}
	if action != ActionClean && r.ResultBundlePath != "" {
		argv = append(argv, "-resultBundlePath", absPath(r.ResultBundlePath))
	}
	if r.TestPlan != "" {
		argv = append(argv, "-testPlan", r.TestPlan)
	}
	for _, id := range r.OnlyTesting {
		argv = append(argv, "-only-testing:"+id)
	}
	for _, id := range r.SkipTesting {
		argv = append(argv, "-skip-testing:"+id)
	}
	if r.ParallelTesting != nil {
		argv = append(argv, "-parallel-testing-enabled", yesNo(*r.ParallelTesting))
	}
	if r.Coverage {
		argv = append(argv, "-enableCodeCoverage", "YES")
	}
	argv = append(argv, r.Args...)
	argv = append(argv, string(action))
	return Command{Argv: argv, Env: commandEnv(r)}, nil
}

// ShowBuildSettingsCommand returns `xcodebuild -showBuildSettings -json`
// for r, with the same derived data path as BuildCommand so that the
// product paths it reports are where the build put them.
func ShowBuildSettingsCommand(r Request) (Command, error) {
	if err := checkTestOptions(ActionBuild, r); err != nil {
		return Command{}, err
	}
	argv, err := baseArgs(r)
	if err != nil {
		return Command{}, err
	}
	argv = slices.Insert(argv, 1, "-showBuildSettings", "-json")
	argv = append(argv, r.Args...)
	return Command{Argv: argv, Env: commandEnv(r)}, nil
}

// ListCommand returns `xcodebuild -list -json` for a workspace or project
// (exactly one).
func ListCommand(workspace, project string) (Command, error) {
	flag, path, err := container(workspace, project)
	if err != nil {
		return Command{}, err
	}
	return Command{Argv: []string{"xcodebuild", "-list", "-json", flag, path}}, nil
}

// baseArgs returns xcodebuild, the container, scheme, configuration,
// destination and derived data arguments.
func baseArgs(r Request) ([]string, error) {
	flag, path, err := container(r.Workspace, r.Project)
	if err != nil {
		return nil, err
	}
	for _, f := range []struct{ name, v string }{
		{"scheme", r.Scheme}, {"configuration", r.Configuration}, {"test_plan", r.TestPlan},
	} {
		if err := checkValue(f.name, f.v); err != nil {
			return nil, err
		}
	}
	if r.Scheme == "" {
		return nil, &RequestError{"scheme", "required (xcode_list_schemes lists them)"}
	}
	argv := []string{"xcodebuild", flag, path, "-scheme", r.Scheme}
	if r.Configuration != "" {
		argv = append(argv, "-configuration", r.Configuration)
	}
	dest, err := r.Destination.Spec()
	if err != nil {
		return nil, err
	}
	if dest != "" {
		argv = append(argv, "-destination", dest)
	}
	dd := r.DerivedDataPath
	if dd == "" {
		if dd, err = DefaultDerivedDataPath(path); err != nil {
			return nil, err
		}
	}
	return append(argv, "-derivedDataPath", absPath(dd)), nil
}

// container returns the -workspace or -project flag and the absolute path.
func container(workspace, project string) (flag, path string, err error) {
	switch {
	case workspace != "" && project != "":
		return "", "", &RequestError{"workspace/project", "give a workspace or a project, not both"}
	case workspace != "":
		if err := checkBundle("workspace", workspace, ".xcworkspace"); err != nil {
			return "", "", err
		}
		return "-workspace", absPath(workspace), nil
	case project != "":
		if err := checkBundle("project", project, ".xcodeproj"); err != nil {
			return "", "", err
		}
		return "-project", absPath(project), nil
	}
	return "", "", &RequestError{"workspace/project", "one is required (xcode_discover_projects finds them)"}
}

func checkBundle(field, path, ext string) error {
	if err := checkValue(field, path); err != nil {
		return err
	}
	if filepath.Ext(strings.TrimRight(path, "/")) != ext {
		return &RequestError{field, fmt.Sprintf("%q is not a %s bundle", path, ext)}
	}
	return nil
}

// checkValue refuses a value that xcodebuild would read as an option or
// that cannot travel in an argv.
func checkValue(field, v string) error {
	switch {
	case strings.HasPrefix(v, "-"):
		return &RequestError{field, fmt.Sprintf("%q starts with '-' and would be read as an option", v)}
	case strings.ContainsRune(v, 0):
		return &RequestError{field, "contains a NUL byte"}
	}
	return nil
}

// testIDRE is a test identifier: Target, Target/Class, Target/Class/method,
// or Swift Testing's Target/Suite[/Nested...]/func().
var testIDRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[^\s/\x00-\x1f-][^/\x00-\x1f]*(/[^/\x00-\x1f]+)*$`) })

func checkTestOptions(action Action, r Request) error {
	testOnly := len(r.OnlyTesting) > 0 || len(r.SkipTesting) > 0 || r.TestPlan != "" || r.ParallelTesting != nil || len(r.TestEnv) > 0
	if r.Coverage && !action.runsTests() {
		return &RequestError{"coverage", fmt.Sprintf("applies to the actions that run tests, not %s", action)}
	}
	if testOnly && !action.buildsTests() {
		return &RequestError{"only_testing/skip_testing/test_plan/parallel_testing/test_env", fmt.Sprintf("apply to test actions, not %s", action)}
	}
	for _, ids := range [][]string{r.OnlyTesting, r.SkipTesting} {
		for _, id := range ids {
			if !testIDRE().MatchString(id) {
				return &RequestError{"only_testing/skip_testing", fmt.Sprintf("%q is not a test identifier (Target[/Class[/method]])", id)}
			}
		}
	}
	for _, env := range []map[string]string{r.Env, r.TestEnv} {
		for k, v := range env {
			if k == "" || strings.ContainsAny(k, "=\x00") || strings.ContainsRune(v, 0) {
				return &RequestError{"env", fmt.Sprintf("invalid variable %q", k)}
			}
		}
	}
	return nil
}

func commandEnv(r Request) map[string]string {
	if len(r.Env) == 0 && len(r.TestEnv) == 0 {
		return nil
	}
	env := make(map[string]string, len(r.Env)+len(r.TestEnv))
	for k, v := range r.Env {
		env[k] = v
	}
	for k, v := range r.TestEnv {
		if !strings.HasPrefix(k, testRunnerPrefix) {
			k = testRunnerPrefix + k
		}
		env[k] = v
	}
	return env
}

// DefaultDerivedDataPath returns the derived data directory triage uses for
// a workspace or project: <user cache dir>/triage/DerivedData/<name>-<hash
// of its absolute path> (on macOS ~/Library/Caches/triage/...), so that
// agents building different checkouts in parallel never share one.
func DefaultDerivedDataPath(containerPath string) (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("choosing a derived data path: %w", err)
	}
	return DerivedDataPathIn(cache, containerPath), nil
}

// DerivedDataPathIn is DefaultDerivedDataPath under a given cache directory.
func DerivedDataPathIn(cacheDir, containerPath string) string {
	abs := absPath(containerPath)
	sum := sha256.Sum256([]byte(abs))
	base := filepath.Base(abs)
	name := strings.TrimSuffix(base, filepath.Ext(base))
	name = strings.Map(func(r rune) rune {
		if r == '/' || r == 0 || r < ' ' {
			return '_'
		}
		return r
	}, name)
	return filepath.Join(cacheDir, "triage", "DerivedData", name+"-"+hex.EncodeToString(sum[:8]))
}

func absPath(p string) string {
	p = strings.TrimRight(p, "/")
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return filepath.Clean(p)
}

func yesNo(b bool) string {
	if b {
		return "YES"
	}
	return "NO"
}

func knownAction(a Action) bool { return slices.Contains(Actions, a) }

func joinActions() string {
	names := make([]string, len(Actions))
	for i, a := range Actions {
		names[i] = string(a)
	}
	return strings.Join(names, ", ")
}
