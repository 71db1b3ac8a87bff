package toolchain

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/testreport"
)

// These tests run real plans through internal/spawn on small projects they
// write, and parse the test output with testreport: the argv must be one the
// tool accepts, and the filters must select what they claim.

func needTool(t *testing.T, name, pkg string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Skipf("%s not on PATH (install the %s package)", name, pkg)
	}
}

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, body := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// runPlan runs the steps in order, stopping at the first that fails, and
// returns the last step's result and output (stdout only, when the step's
// format is machine-readable on stdout, so that stderr noise stays out).
func runPlan(t *testing.T, steps []Step, env map[string]string) (*spawn.Result, []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var res *spawn.Result
	var out bytes.Buffer
	for _, s := range steps {
		out.Reset()
		// One pipe for both streams, as triage runs steps: cargo's "Running"
		// on stderr must not overtake libtest's results on stdout.
		spec := spawn.Spec{Argv: s.Argv, Dir: s.Dir, Env: mergeEnv(s.Env, env), Combined: &out, MergeStderr: true}
		var err error
		res, err = spawn.Run(ctx, spec)
		if err != nil {
			t.Fatalf("%s: %v", s.CommandLine(), err)
		}
		if !res.Success() && s.Name != StepTest {
			t.Fatalf("%s: %v\n%s", s.CommandLine(), res, out.Bytes())
		}
	}
	return res, out.Bytes()
}

func mergeEnv(a, b map[string]string) map[string]string {
	m := map[string]string{}
	for k, v := range a {
		m[k] = v
	}
	for k, v := range b {
		m[k] = v
	}
	return m
}

func parseLast(t *testing.T, steps []Step, out []byte) *testreport.Report {
	t.Helper()
	last := steps[len(steps)-1]
	rep, err := testreport.Parse(last.Format, bytes.NewReader(out))
	if err != nil {
		t.Fatalf("parsing %s output: %v\n%s", last.Format, err, out)
	}
	return rep
}

func caseNames(rep *testreport.Report) map[string]testreport.Status {
	m := map[string]testreport.Status{}
	for _, c := range rep.Cases {
		m[c.Name] = c.Status
	}
	return m
}

func TestRealGo(t *testing.T) {
	needTool(t, "go", "golang-go")
	dir := writeFiles(t, map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.22\n",
		"m_test.go": `package m
import "testing"
func TestAlpha(t *testing.T) {}
func TestBeta(t *testing.T) { t.Run("one", func(t *testing.T) {}); t.Run("two", func(t *testing.T) { t.Fatal("two fails") }) }
func TestGamma(t *testing.T) {}
`,
	})
	tc, err := Detect(dir)
	if err != nil || tc != Go {
		t.Fatalf("Detect = %q, %v", tc, err)
	}
	env := map[string]string{"GOFLAGS": "-count=1"}
	tests := []struct {
		name   string
		o      Options
		status testreport.Status
		want   map[string]testreport.Status
	}{
		{"joined patterns", Options{Run: []string{"^TestAlpha$", "Gamma"}, Jobs: 1}, testreport.Passed,
			map[string]testreport.Status{"TestAlpha": testreport.Passed, "TestGamma": testreport.Passed}},
		{"subtest pattern", Options{Run: []string{"TestBeta/two"}}, testreport.Failed, nil},
		{"skip", Options{Skip: []string{"Beta"}}, testreport.Passed,
			map[string]testreport.Status{"TestAlpha": testreport.Passed, "TestGamma": testreport.Passed}},
		{"filter matching nothing", Options{Run: []string{"NoSuchTest"}}, testreport.NoTests, map[string]testreport.Status{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			steps, err := TestPlan(tc, dir, tt.o)
			if err != nil {
				t.Fatal(err)
			}
			_, out := runPlan(t, steps, env)
			rep := parseLast(t, steps, out)
			if rep.Status != tt.status {
				t.Errorf("status %s, want %s\n%s", rep.Status, tt.status, out)
			}
			if got := caseNames(rep); tt.want != nil && !equalStatus(got, tt.want) {
				t.Errorf("cases %v, want %v", got, tt.want)
			}
		})
	}
	steps, err := BuildPlan(tc, dir, Options{Features: []string{"sometag"}})
	if err != nil {
		t.Fatal(err)
	}
	runPlan(t, steps, nil)
}

func TestRealCargo(t *testing.T) {
	needTool(t, "cargo", "cargo")
	dir := writeFiles(t, map[string]string{
		"Cargo.toml": "[package]\nname = \"m\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[features]\nextra = []\n",
		"src/lib.rs": `
#[cfg(test)]
mod tests {
    #[test] fn parse_ok() {}
    #[test] fn lex_ok() {}
    #[test] fn slow_parse() {}
    #[test] fn boom() { panic!("boom") }
}
`,
	})
	env := map[string]string{"CARGO_TARGET_DIR": filepath.Join(dir, "target"), "CARGO_NET_OFFLINE": "true"}
	tests := []struct {
		name   string
		o      Options
		status testreport.Status
		want   map[string]testreport.Status
	}{
		{"several filters and a skip", Options{Run: []string{"parse", "lex"}, Skip: []string{"slow"}, Jobs: 2, Features: []string{"extra"}}, testreport.Passed,
			map[string]testreport.Status{"tests::parse_ok": testreport.Passed, "tests::lex_ok": testreport.Passed}},
		{"harness args pass through", Options{Run: []string{"boom"}, Args: []string{"--lib", "--", "--test-threads=1"}}, testreport.Failed, nil},
		{"filter matching nothing", Options{Run: []string{"no_such_test"}}, testreport.NoTests, map[string]testreport.Status{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			steps, err := TestPlan(Cargo, dir, tt.o)
			if err != nil {
				t.Fatal(err)
			}
			_, out := runPlan(t, steps, env)
			rep := parseLast(t, steps, out)
			if rep.Status != tt.status {
				t.Errorf("status %s, want %s\n%s", rep.Status, tt.status, out)
			}
			if got := caseNames(rep); tt.want != nil && !equalStatus(got, tt.want) {
				t.Errorf("cases %v, want %v", got, tt.want)
			}
		})
	}
}

func TestRealCMake(t *testing.T) {
	needTool(t, "cmake", "cmake")
	needTool(t, "cc", "gcc")
	dir := writeFiles(t, map[string]string{
		"CMakeLists.txt": `cmake_minimum_required(VERSION 3.10)
project(m C)
enable_testing()
add_executable(ok ok.c)
add_executable(crash crash.c)
add_test(NAME unit_ok COMMAND ok)
add_test(NAME unit_crash COMMAND crash)
`,
		"ok.c":    "int main(void) { return 0; }\n",
		"crash.c": "int main(void) { volatile int *p = 0; return *p; }\n",
	})
	steps, err := TestPlan(CMake, dir, Options{Configuration: "Debug", Run: []string{"ok", "nothing"}, Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	res, out := runPlan(t, steps, nil)
	if rep := parseLast(t, steps, out); rep.Status != testreport.Passed || !equalStatus(caseNames(rep), map[string]testreport.Status{"unit_ok": testreport.Passed}) {
		t.Errorf("filtered run: %v %v\n%s", rep.Status, caseNames(rep), out)
	}
	if !res.Success() {
		t.Errorf("filtered run: %v", res)
	}

	steps, err = TestPlan(CMake, dir, Options{Configuration: "Debug", Targets: []string{"ok", "crash"}})
	if err != nil {
		t.Fatal(err)
	}
	junit := steps[len(steps)-1].ReportFile
	_, out = runPlan(t, steps, nil)
	if rep := parseLast(t, steps, out); rep.Status != testreport.Crashed {
		t.Errorf("full run: status %s, want crashed\n%s", rep.Status, out)
	}
	f, err := os.Open(junit)
	if err != nil {
		t.Fatalf("ctest wrote no JUnit report: %v", err)
	}
	defer f.Close()
	rep, err := testreport.Parse(steps[len(steps)-1].ReportFormat, f)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Totals.Total != 2 {
		t.Errorf("JUnit report has %d tests, want 2", rep.Totals.Total)
	}

	steps, err = TestPlan(CMake, dir, Options{Skip: []string{"unit_"}})
	if err != nil {
		t.Fatal(err)
	}
	_, out = runPlan(t, steps, nil)
	if rep := parseLast(t, steps, out); rep.Status != testreport.NoTests {
		t.Errorf("skip-all run: status %s, want no_tests\n%s", rep.Status, out)
	}
}

func TestRealMake(t *testing.T) {
	needTool(t, "make", "make")
	dir := writeFiles(t, map[string]string{
		"Makefile": "all:\n\t@echo built\n\ncheck: all\n\t@echo checked > checked.txt\n",
	})
	steps, err := BuildPlan(Make, dir, Options{Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	runPlan(t, steps, nil)
	steps, err = TestPlan(Make, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res, out := runPlan(t, steps, nil); !res.Success() {
		t.Fatalf("%v\n%s", res, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "checked.txt")); err != nil {
		t.Errorf("the check target did not run: %v", err)
	}
}

func equalStatus(a, b map[string]testreport.Status) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
