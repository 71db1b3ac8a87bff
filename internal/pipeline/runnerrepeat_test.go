package pipeline

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/logfilter"
	"github.com/triage-dev/triage/internal/toolchain"
)

// counterModule's TestFlaky fails on every third run by the counter in
// $COUNTER, and panics on run $PANIC_AT; TestStable always passes.
var counterModule = map[string]string{
	"go.mod": "module example.com/counter\n\ngo 1.21\n",
	"counter_test.go": `package counter

import (
	"os"
	"strconv"
	"syscall"
	"testing"
)

// bump counts a run under a lock: copies run at once.
func bump() int {
	f, err := os.OpenFile(os.Getenv("COUNTER"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		panic(err)
	}
	defer f.Close()
	syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
	b := make([]byte, 16)
	k, _ := f.ReadAt(b, 0)
	n, _ := strconv.Atoi(string(b[:k]))
	n++
	f.WriteAt([]byte(strconv.Itoa(n)), 0)
	return n
}

func TestFlaky(t *testing.T) {
	n := bump()
	if os.Getenv("PANIC_AT") == strconv.Itoa(n) {
		panic("boom")
	}
	if n%3 == 0 {
		t.Errorf("counter is %d", n)
	}
}

func TestStable(t *testing.T) {}
`,
}

// repeatCall is a test call of dir whose counter file starts empty.
func repeatCall(t *testing.T, dir string, env map[string]string) Call {
	counter := filepath.Join(t.TempDir(), "count")
	env["COUNTER"] = counter
	return Call{Tool: "test", Store: openStore(t), Budget: 8192, Kind: toolchain.StepTest, ProjectDir: dir,
		Options: toolchain.Options{Env: env}, Level: logfilter.Standard, Answer: func(*Called) any { return nil }}
}

func needTools(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skip("no " + tool)
		}
	}
}

// TestRepeatGoInOneProcess: repeat 9 runs one go test -count=9 (one
// output), tallied run by run as triage's loop would: FLAKY 3 of 9.
func TestRepeatGoInOneProcess(t *testing.T) {
	needTools(t, "go")
	rep, err := RepeatTests(context.Background(), repeatCall(t, writeFiles(t, counterModule), map[string]string{}), Repeat{Times: 9})
	if err != nil {
		t.Fatal(err)
	}
	f := rep.Flakiness
	if len(rep.Runs) != 1 || f.Runs != 9 || f.Failed != 3 || !strings.Contains(f.Note, "one go test -count=9") {
		t.Fatalf("%d outputs, tally %+v", len(rep.Runs), f)
	}
	if got := f.Verdict(); got != "FLAKY: example.com/counter TestFlaky failed 3 of 9 runs (1 distinct failure)" {
		t.Errorf("verdict %q", got)
	}
	if g := f.Tests[0].Groups[0]; g.FirstRun != 3 || g.FirstOutput != rep.Runs[0].Output.ID || rep.Label(0) != "runs 1 to 9 of 9" {
		t.Errorf("group %+v label %q", g, rep.Label(0))
	}
}

// TestRepeatGoPanicFallsBack: a panic in run 4 ends go test's binary:
// runs 1 to 4 from its output (run 4 crashed), runs 5 to 6 one go test
// each, and the note says so.
func TestRepeatGoPanicFallsBack(t *testing.T) {
	needTools(t, "go")
	c := repeatCall(t, writeFiles(t, counterModule), map[string]string{"PANIC_AT": "4"})
	rep, err := RepeatTests(context.Background(), c, Repeat{Times: 6})
	if err != nil {
		t.Fatal(err)
	}
	f := rep.Flakiness
	if len(rep.Runs) != 3 || f.Runs != 6 || !strings.Contains(f.Note, "died in run 4: runs 5 to 6 ran one go test each") {
		t.Fatalf("%d outputs, tally %+v", len(rep.Runs), f)
	}
	// run 3 failed, run 4 crashed, run 6 failed: two groups
	if f.Failed != 3 || len(f.Tests) != 1 || len(f.Tests[0].Groups) != 2 {
		t.Fatalf("tally %+v", f)
	}
	crash := f.Tests[0].Groups[1]
	if crash.Kind != "crashed" || crash.FirstRun != 4 || rep.Holding(6) != 2 || rep.Holding(4) != 0 {
		t.Errorf("crash group %+v, run 6 in output %d", crash, rep.Holding(6))
	}
}

// TestRepeatStress: parallel copies and go test's -cpu list; each run
// one process, the verdict the same as one at a time.
func TestRepeatStress(t *testing.T) {
	needTools(t, "go")
	dir := writeFiles(t, counterModule)
	rep, err := RepeatTests(context.Background(), repeatCall(t, dir, map[string]string{}), Repeat{Times: 6, Parallel: 3})
	if err != nil {
		t.Fatal(err)
	}
	// The counter is shared under a lock: which copy counts which value
	// is the scheduler's, how many fail is not (the third and sixth).
	if f := rep.Flakiness; len(rep.Runs) != 6 || f.Runs != 6 || f.Failed != 2 || f.Note != "" {
		t.Errorf("parallel: %d outputs, tally %+v", len(rep.Runs), f)
	}
	rep, err = RepeatTests(context.Background(), repeatCall(t, dir, map[string]string{}), Repeat{Times: 2, CPU: []string{"1", "2", "4"}})
	if err != nil {
		t.Fatal(err)
	}
	if f := rep.Flakiness; f.Runs != 6 || f.Asked != 6 || f.Failed != 2 {
		t.Errorf("cpu: tally %+v", f)
	}
	if _, err := RepeatTests(context.Background(), Call{Kind: toolchain.StepTest, ProjectDir: writeFiles(t, map[string]string{"Makefile": "test:\n\ttrue\n"})},
		Repeat{Times: 2, Race: true}); err == nil {
		t.Error("race under make was accepted")
	}
}

// TestRepeatCTestUntilFail: until_fail under ctest runs one ctest
// --repeat until-fail:N; the program failing on its third run stops the
// tally there.
func TestRepeatCTestUntilFail(t *testing.T) {
	needTools(t, "cmake", "ctest", "cc")
	dir := writeFiles(t, map[string]string{
		"CMakeLists.txt": "cmake_minimum_required(VERSION 3.16)\nproject(f C)\nenable_testing()\nadd_executable(flaky flaky.c)\n" +
			"add_test(NAME flaky COMMAND flaky)\nadd_test(NAME stable COMMAND flaky stable)\n",
		"flaky.c": `#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
	if (argc > 1) return 0;
	const char *p = getenv("COUNTER");
	int n = 0;
	FILE *f = fopen(p, "r");
	if (f) { if (fscanf(f, "%d", &n) != 1) n = 0; fclose(f); }
	f = fopen(p, "w"); fprintf(f, "%d", ++n); fclose(f);
	if (n % 3 == 0) { printf("boom at %d\n", n); return 1; }
	return 0;
}
`})
	rep, err := RepeatTests(context.Background(), repeatCall(t, dir, map[string]string{}), Repeat{Times: 10, UntilFail: true})
	if err != nil {
		t.Fatal(err)
	}
	f := rep.Flakiness
	if len(rep.Runs) != 1 || f.Runs != 3 || f.Failed != 1 || !strings.Contains(f.Note, "ctest --repeat until-fail:10") {
		t.Fatalf("%d outputs, tally %+v", len(rep.Runs), f)
	}
	if got := f.Verdict(); got != "FLAKY: flaky failed 1 of 3 runs (1 distinct failure)" {
		t.Errorf("verdict %q", got)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatal(err)
	}
}
