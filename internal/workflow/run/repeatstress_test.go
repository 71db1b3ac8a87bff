package run_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/testutil/mcptest"
	"github.com/triage-dev/triage/internal/testutil/nativeprojects"
)

// lockedModule's TestEveryThird fails on every third run by a counter in
// $FLAKY_COUNTER, counted under a lock: copies of it run at once.
var lockedModule = map[string]string{
	"go.mod": "module example.com/locked\n\ngo 1.22\n",
	"locked_test.go": `package locked

import (
	"os"
	"strconv"
	"syscall"
	"testing"
)

func TestEveryThird(t *testing.T) {
	f, err := os.OpenFile(os.Getenv("FLAKY_COUNTER"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
	b := make([]byte, 16)
	k, _ := f.ReadAt(b, 0)
	n, _ := strconv.Atoi(string(b[:k]))
	n++
	f.WriteAt([]byte(strconv.Itoa(n)), 0)
	if n%3 == 0 {
		t.Errorf("run %d of the counter", n)
	}
}
`,
}

// TestRepeatStressGo: the stress options keep the verdict: 3 copies at
// once (one go test each), go test's -cpu list (each value a run) and
// -race passed to go test; a stress option without repeat is refused.
func TestRepeatStressGo(t *testing.T) {
	needTool(t, "go", "golang-go")
	c := mcptest.Connect(t, nil)
	dir := nativeprojects.Write(t, lockedModule)
	counter := filepath.Join(t.TempDir(), "counter")
	const flaky = "FLAKY: example.com/locked TestEveryThird failed 2 of 6 runs (1 distinct failure)"

	r := c.Call("test", repeatCall(t, dir, counter, "", map[string]any{"repeat": 6, "parallel": 3}))
	if f := repeatOf(t, r); r.FirstLine() != flaky || f.Note != "" || f.Tests[0].Groups[0].FirstOutput == "" {
		t.Errorf("parallel: verdict %q\n%s", r.FirstLine(), r.Text)
	}

	r = c.Call("test", repeatCall(t, dir, counter, "", map[string]any{"repeat": 3, "cpu": []int{1, 2}, "race": true}))
	var out buildTestOutput
	r.Decode(t, &out)
	if r.FirstLine() != flaky || len(out.Steps) == 0 || !strings.Contains(out.Steps[0].Command, "-count=3 -cpu=1,2 -race") {
		t.Errorf("cpu and race: verdict %q steps %+v\n%s", r.FirstLine(), out.Steps, r.Text)
	}

	r = c.Call("test", map[string]any{"project_dir": dir, "race": true})
	if r.Outcome != "usage_error" || !strings.Contains(r.Text, "give repeat") {
		t.Errorf("race without repeat: %s %s", r.Outcome, r.Text)
	}
}

// lockedCrashy crashes on every third run by the counter in
// $FLAKY_COUNTER, counted under a lock: copies of it run at once.
const lockedCrashy = `#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <fcntl.h>
#include <unistd.h>

static void crash_here(volatile int *p) { *p = 1; }

int main(void) {
	int fd = open(getenv("FLAKY_COUNTER"), O_RDWR | O_CREAT, 0644);
	if (fd < 0 || flock(fd, LOCK_EX) != 0) return 2;
	char b[16] = {0};
	ssize_t k = pread(fd, b, sizeof b - 1, 0);
	int n = k > 0 ? atoi(b) : 0;
	n++;
	int len = snprintf(b, sizeof b, "%d", n);
	if (pwrite(fd, b, len, 0) != len) return 2;
	flock(fd, LOCK_UN);
	if (n % 3 == 0) crash_here(NULL);
	return 0;
}
`

// TestRepeatRunParallel: run with repeat and parallel runs copies at
// once: the verdict is the one of runs one at a time, and the tally is
// kept as an output of its own; parallel alone is refused.
func TestRepeatRunParallel(t *testing.T) {
	needTool(t, "cc", "gcc")
	c := mcptest.Connect(t, nil)
	dir := nativeprojects.Write(t, map[string]string{"crashy.c": lockedCrashy})
	if out, err := exec.Command("cc", "-g", "-O0", "-o", filepath.Join(dir, "crashy"), filepath.Join(dir, "crashy.c")).CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	counter := filepath.Join(t.TempDir(), "counter")
	r := c.Call("run", repeatCall(t, dir, counter, "", map[string]any{"program": "./crashy", "repeat": 6, "parallel": 3}))
	if r.Outcome != "failed" || r.FirstLine() != "FLAKY: crashy failed 2 of 6 runs (1 distinct failure)" ||
		!strings.Contains(r.Text, "the tally is kept as output o-") {
		t.Fatalf("outcome %q verdict %q\n%s", r.Outcome, r.FirstLine(), r.Text)
	}
	r = c.Call("run", map[string]any{"program": "true", "parallel": 2})
	if r.Outcome != "usage_error" || !strings.Contains(r.Text, "give repeat") {
		t.Errorf("parallel without repeat: %s %s", r.Outcome, r.Text)
	}
}
