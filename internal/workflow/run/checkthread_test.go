package run_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/testutil/mcptest"
	"github.com/triage-dev/triage/internal/workflow/run"
)

// raceC bumps counter from a thread (race.c:4) while main reads it
// (race.c:8); it exits 0.
const raceC = `#include <pthread.h>
#include <stdio.h>
int counter;
void *bump(void *arg) { counter++; return arg; }
int main(void) {
	pthread_t t;
	pthread_create(&t, 0, bump, 0);
	int seen = counter;
	pthread_join(t, 0);
	printf("seen %d\n", seen >= 0);
	return 0;
}
`

// check: thread runs a program built plainly under valgrind helgrind
// from its start: its data race fails the run though it exited 0, the
// verdict naming the racing read, the other thread's write and the
// variable.
func TestRunCheckThread(t *testing.T) {
	needValgrind(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "race.c"), []byte(raceC), 0o644); err != nil {
		t.Fatal(err)
	}
	cc := exec.Command("gcc", "-g", "-O0", "-pthread", "-o", "race", "race.c")
	cc.Dir = dir
	if out, err := cc.CombinedOutput(); err != nil {
		t.Skipf("gcc: %v\n%s", err, out)
	}
	c := mcptest.Connect(t, nil)
	r := c.Call("run", map[string]any{"program": "./race", "project_dir": dir, "check": "thread"})
	var out run.RunOutput
	r.Decode(t, &out)
	// Which side of the race helgrind catches is its scheduler's: main's
	// read, as a rule.
	want := "FAILED: helgrind: data race: read of size 4 by thread #1 at race.c:8 in main (this conflicts with a previous write of size 4 by thread #2 at race.c:4 in bump; address 0x"
	if strings.HasPrefix(r.FirstLine(), "FAILED: helgrind: data race: write") {
		want = "FAILED: helgrind: data race: write of size 4 by thread #2 at race.c:4 in bump (this conflicts with a previous read of size 4 by thread #1 at race.c:8 in main; address 0x"
	}
	if r.Outcome != "failed" || !strings.HasPrefix(r.FirstLine(), want) || !strings.Contains(r.FirstLine(), `data symbol "counter"`) ||
		!strings.HasSuffix(r.FirstLine(), "the program exited 0") {
		t.Fatalf("outcome %q verdict %q, want %q…\n%s", r.Outcome, r.FirstLine(), want, r.Text)
	}
	if !strings.Contains(r.Text, "ran under valgrind helgrind from its start (check: thread)") || !strings.Contains(r.Text, "seen 1") {
		t.Errorf("the answer does not say it ran under helgrind, or lacks the output:\n%s", r.Text)
	}
	if me := out.Verdict.MemoryError; me == nil || me.Kind == "" || me.Site == nil || (me.Site.Line != 8 && me.Site.Line != 4) {
		t.Errorf("memory_error %+v", me)
	}
}
