package e2e

import (
	"bytes"
	"errors"
	"os/exec"
	"strings"
	"testing"
)

// TestBuildTestThroughBinary drives `triage call test` and `triage filter`
// on a real Go module: exit status 1 and the verdict line first for failing
// tests, and the same verdict from the log piped into triage filter.
func TestBuildTestThroughBinary(t *testing.T) {
	goBin := need(t, "go", "the Go toolchain (golang-go)")
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":         "module example.com/e2e\n\ngo 1.22\n",
		"calc/calc.go":   "package calc\n\nfunc Add(a, b int) int { return a + b }\n",
		"calc/a_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 2) != 5 {\n\t\tt.Errorf(\"Add(2, 2) = %d, want 5\", Add(2, 2))\n\t}\n}\n\nfunc TestOK(t *testing.T) {}\n",
	}
	writeTree(t, dir, files)
	cmd := exec.Command(triageBin, "call", "test", "--store", ":memory:", "--project_dir", dir)
	out, err := cmd.Output()
	if code := exitCode(err); code != 1 || !strings.HasPrefix(string(out), "TESTS FAILED: 1 of 2 failed\n") {
		t.Fatalf("triage call test: exit %d\n%s", code, out)
	}
	if !strings.Contains(string(out), "a_test.go:7") {
		t.Errorf("no failure location:\n%s", out)
	}
	cmd = exec.Command(triageBin, "call", "build", "--store", ":memory:", "--project_dir", dir)
	if out, err := cmd.Output(); exitCode(err) != 0 || !strings.HasPrefix(string(out), "BUILD SUCCEEDED (0 warnings)\n") {
		t.Errorf("triage call build: exit %d\n%s", exitCode(err), out)
	}

	// The same run's log, piped into triage filter.
	gotest := exec.Command(goBin, "test", "-json", "./...")
	gotest.Dir = dir
	log, _ := gotest.Output()
	filter := exec.Command(triageBin, "filter")
	filter.Stdin = bytes.NewReader(log)
	out, err = filter.Output()
	if code := exitCode(err); code != 1 || !strings.HasPrefix(string(out), "TESTS FAILED: 1 of 2 failed\n") {
		t.Errorf("triage filter: exit %d\n%s", code, out)
	}
	filter = exec.Command(triageBin, "filter", "--toolchain", "nonesuch")
	if _, err := filter.Output(); exitCode(err) != 2 {
		t.Errorf("triage filter --toolchain nonesuch: exit %d, want 2", exitCode(err))
	}
}

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}
