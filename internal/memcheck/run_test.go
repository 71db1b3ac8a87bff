package memcheck

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/fault"
)

// These tests run real programs, compiled with gcc -g -O0 from
// testdata/src, under the real valgrind.

// needValgrind skips when valgrind is not installed, except under CI
// (CI=true), where scripts/install-deps.sh has installed it: there its
// absence fails.
func needValgrind(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("valgrind"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("valgrind is not on PATH under CI: scripts/install-deps.sh installs it (apt-get install valgrind)")
		}
		t.Skip("valgrind is not on PATH: apt-get install valgrind (scripts/install-deps.sh) to run the memcheck tests")
	}
}

// build copies testdata/src/name into a new directory, the project's, and
// compiles it there with -g -O0; it returns the directory and the program.
func build(t *testing.T, name string) (dir, prog string) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", "src", name))
	if err != nil {
		t.Fatal(err)
	}
	return buildSource(t, name, string(src))
}

func buildSource(t *testing.T, name, src string) (dir, prog string) {
	t.Helper()
	dir = t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cc := "gcc"
	if strings.HasSuffix(name, ".cpp") {
		cc = "g++"
	}
	prog = strings.TrimSuffix(name, filepath.Ext(name))
	cmd := exec.Command(cc, "-g", "-O0", "-o", prog, name)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", cc, name, err, out)
	}
	return dir, filepath.Join(dir, prog)
}

// TestRunFindsErrors: each program's first error, found by valgrind in a
// real run, is named at the file:line of its access, of its allocation
// and of its free; valgrind exits with ErrorExitCode, or dies of the
// program's own signal after the NULL write.
func TestRunFindsErrors(t *testing.T) {
	needValgrind(t)
	for _, w := range cases {
		t.Run(w.name, func(t *testing.T) {
			t.Parallel()
			dir, prog := build(t, w.src)
			r, err := Run(context.Background(), Options{Argv: []string{prog}, Dir: dir, ProjectDir: dir,
				Timeout: 2 * time.Minute, Leaks: w.name == "leak", TrackOrigins: true})
			if err != nil {
				t.Fatal(err)
			}
			if r.Outcome != Found || r.Seen != 1 || len(r.Errors) != 1 {
				t.Fatalf("outcome %v, %d seen: %s\nstderr: %s", r.Outcome, r.Seen, r.Summary(), r.Stderr)
			}
			w.check(t, r.First())
			at := " at "
			if isLeak(w.kind) {
				at = ", allocated at " // a leak's stack is its allocation's
			}
			if got := r.Summary(); !strings.HasPrefix(got, "memcheck: "+w.words+at+site(t, w.src, w.at[0], w.at[1])) {
				t.Errorf("summary %q", got)
			}
			if int64(len(r.XML)) != r.XMLSize || !bytes.Contains(r.XML, []byte("<kind>"+w.kind+"</kind>")) {
				t.Errorf("XML kept: %d of %d bytes", len(r.XML), r.XMLSize)
			}
			p := r.Process
			if w.name == "null_deref" {
				if !p.Signaled || p.SignalName != "SIGSEGV" || r.Signal == nil || r.Signal.Name != "SIGSEGV" {
					t.Errorf("valgrind ended %v, signal %+v; want SIGSEGV", p, r.Signal)
				}
			} else if !r.ErrorExit || !p.Exited || p.ExitCode != ErrorExitCode {
				t.Errorf("valgrind ended %v, error exit %v", p, r.ErrorExit)
			}
		})
	}
}

// TestRunClean: a program without a memory error is the explicit "no
// memory error seen", with its own exit status; its output reaches the
// caller's sink.
func TestRunClean(t *testing.T) {
	needValgrind(t)
	dir, prog := build(t, "clean.c")
	var out strings.Builder
	r, err := Run(context.Background(), Options{Argv: []string{prog}, Dir: dir, ProjectDir: dir, Stdout: &out})
	if err != nil {
		t.Fatal(err)
	}
	want := "memcheck: no memory error seen in 1 run under valgrind (leaks not checked); the program exited with status 0"
	if r.Outcome != Clean || r.Summary() != want || r.Detail() != want || r.ErrorExit || r.First() != nil {
		t.Errorf("outcome %v: %q", r.Outcome, r.Summary())
	}
	if out.String() != "15\n" {
		t.Errorf("program's stdout %q", out.String())
	}
}

// TestRunLeaksOnlyWhenAsked: the leak is no error unless leaks are asked
// for (valgrind does not look for them then).
func TestRunLeaksOnlyWhenAsked(t *testing.T) {
	needValgrind(t)
	dir, prog := build(t, "leak.c")
	r, err := Run(context.Background(), Options{Argv: []string{prog}, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if r.Outcome != Clean || !slices.Contains(r.Argv, "--leak-check=no") {
		t.Errorf("outcome %v (%s), argv %q", r.Outcome, r.Summary(), r.Argv)
	}
}

// loopSource prints "ready" once running, then spins forever.
const loopSource = `#include <stdio.h>
int main(void)
{
	puts("ready");
	fflush(stdout);
	for (volatile int i = 0;; i++)
		;
}
`

// TestRunTimeout: a program that never ends is stopped at the time limit
// (its process group killed and reaped: TestMain fails on a survivor), and
// the result says so instead of "no memory error seen".
func TestRunTimeout(t *testing.T) {
	needValgrind(t)
	dir, prog := buildSource(t, "loop.c", loopSource)
	r, err := Run(context.Background(), Options{Argv: []string{prog}, Dir: dir, Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if r.Outcome != Incomplete || !r.Process.TimedOut || !strings.HasPrefix(r.Reason, "timed out after 2s before valgrind finished") {
		t.Errorf("outcome %v, timed out %v: %q", r.Outcome, r.Process.TimedOut, r.Reason)
	}
}

// cancelOn cancels when the program has printed word: a readiness signal.
type cancelOn struct {
	mu     sync.Mutex
	b      strings.Builder
	word   string
	cancel context.CancelFunc
}

func (c *cancelOn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.b.Write(p)
	if strings.Contains(c.b.String(), c.word) {
		c.cancel()
	}
	return len(p), nil
}

// TestRunCancelled: a run whose context is cancelled once the program runs
// is Incomplete, and says it was cancelled.
func TestRunCancelled(t *testing.T) {
	needValgrind(t)
	dir, prog := buildSource(t, "loop.c", loopSource)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r, err := Run(ctx, Options{Argv: []string{prog}, Dir: dir, Stdout: &cancelOn{word: "ready", cancel: cancel}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Outcome != Incomplete || !r.Process.Cancelled || !strings.HasPrefix(r.Reason, "cancelled before valgrind finished") {
		t.Errorf("outcome %v: %q", r.Outcome, r.Reason)
	}
}

// TestRunKeepsXML: with XMLPath, valgrind's XML stays there whole, even in
// a directory whose name holds '%' (which valgrind would expand).
func TestRunKeepsXML(t *testing.T) {
	needValgrind(t)
	dir, prog := build(t, "overflow_write.c")
	keep := filepath.Join(t.TempDir(), "run%p", "memcheck.xml")
	if err := os.MkdirAll(filepath.Dir(keep), 0o755); err != nil {
		t.Fatal(err)
	}
	r, err := Run(context.Background(), Options{Argv: []string{prog}, Dir: dir, XMLPath: keep})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(keep)
	if err != nil || r.XMLPath != keep || !bytes.Equal(data, r.XML) || r.Outcome != Found {
		t.Errorf("kept %q (%d bytes, %v), result %q %d bytes, %v", keep, len(data), err, r.XMLPath, len(r.XML), r.Outcome)
	}
}

// TestRunEnvAndDir: the program runs in the directory given, with the
// environment given.
func TestRunEnvAndDir(t *testing.T) {
	needValgrind(t)
	dir, _ := buildSource(t, "env.c", `#include <stdlib.h>
#include <string.h>
#include <unistd.h>
int main(void)
{
	const char *v = getenv("MEMCHECK_TEST");
	return v && strcmp(v, "yes") == 0 && access("env.c", F_OK) == 0 ? 0 : 3;
}
`)
	r, err := Run(context.Background(), Options{Argv: []string{"./env"}, Dir: dir, Env: map[string]string{"MEMCHECK_TEST": "yes"}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Outcome != Clean || r.Process.ExitCode != 0 {
		t.Errorf("outcome %v, %s", r.Outcome, r.Summary())
	}
}

// TestRunProgramMissing: valgrind's own refusal (no such program) is an
// Incomplete result that quotes it.
func TestRunProgramMissing(t *testing.T) {
	needValgrind(t)
	r, err := Run(context.Background(), Options{Argv: []string{"./no-such-program"}, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if r.Outcome != Incomplete || !strings.Contains(r.Reason, "valgrind wrote no XML") || !strings.Contains(r.Reason, "No such file") {
		t.Errorf("outcome %v: %q", r.Outcome, r.Reason)
	}
}

// TestRunRefuses: no program, or one valgrind would read as an option, is a
// usage error; valgrind missing is "unavailable", saying what installs it.
func TestRunRefuses(t *testing.T) {
	for _, argv := range [][]string{nil, {""}, {"-v"}} {
		if _, err := Run(context.Background(), Options{Argv: argv}); !fault.Is(err, fault.KindUsage) {
			t.Errorf("Run(%q) = %v, want a usage error", argv, err)
		}
	}
	t.Setenv("PATH", t.TempDir())
	_, err := Run(context.Background(), Options{Argv: []string{"/bin/true"}})
	if !fault.Is(err, fault.KindUnavailable) || !strings.Contains(err.Error(), "apt-get install valgrind") {
		t.Errorf("without valgrind: %v", err)
	}
}
