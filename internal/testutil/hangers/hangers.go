// Package hangers writes small programs that hang, into a test's temporary
// directory, and builds them with the real toolchains: two C threads in an
// ABBA pthread mutex deadlock, a Go program deadlocked on two mutexes, a Go
// test blocked on a channel, a Rust test stuck in a loop and one blocked on
// a channel (rust.go), C threads waiting
// for a mutex or a rwlock another holds (locks.go), a C program of
// many sleeping threads (for benchmarks); and for the stall watch
// (stalls.go) a C pipe read nobody feeds, a Go channel deadlock behind a
// long timer, and a sleeper, a spinner and a printer that are never hung.
//
// Each program prints "ready" once it is in its hung state, so that a test
// can end it at a known point instead of after a sleep. Source lines the
// tests expect in a verdict are marked with comments; Line finds them.
//
// Import it from _test files only. A missing compiler skips the test,
// except in CI (CI set), where it fails it.
package hangers

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/spawn"
)

// Program is a written (and, for single binaries, built) hanging program.
type Program struct {
	Dir    string // the project or source directory
	Source string // the source file with the marked lines
	Bin    string // the built binary; "" for a project run by its tool
}

// Line returns the 1-based line of the source that carries marker.
func (p Program) Line(t testing.TB, marker string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(p.Dir, p.Source))
	if err != nil {
		t.Fatal(err)
	}
	for i, ln := range strings.Split(string(b), "\n") {
		if strings.Contains(ln, marker) {
			return i + 1
		}
	}
	t.Fatalf("no line marked %q in %s", marker, p.Source)
	return 0
}

// Need skips the test when tool is missing (fails it in CI).
func Need(t testing.TB, tool string) {
	t.Helper()
	if _, err := exec.LookPath(tool); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is required in CI: %v", tool, err)
		}
		t.Skipf("%s is not installed", tool)
	}
}

func write(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// run runs a build command through spawn and fails the test on failure.
func run(t testing.TB, dir string, env map[string]string, argv ...string) {
	t.Helper()
	var out bytes.Buffer
	res, err := spawn.Run(context.Background(), spawn.Spec{Argv: argv, Dir: dir, Env: env, Stdout: &out, Stderr: &out, Timeout: 10 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Success() {
		t.Fatalf("%v: %v\n%s", argv, res, out.String())
	}
}

// ABBA is a C program whose two threads each hold one mutex and wait for
// the other's; main waits in pthread_join, and says "ready" once both
// sleep in their lock. Lines "LOCK-B-IN-ONE" and "LOCK-A-IN-TWO" are
// where they block.
func ABBA(t testing.TB) Program {
	t.Helper()
	return cProgram(t, "abba", abbaC)
}

const abbaC = asleepC + `
static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t all_hold_one;

static void *one(void *arg) {
	pthread_mutex_lock(&a);
	pthread_barrier_wait(&all_hold_one);
	about_to_block(0);
	pthread_mutex_lock(&b); /* LOCK-B-IN-ONE */
	return arg;
}

static void *two(void *arg) {
	pthread_mutex_lock(&b);
	pthread_barrier_wait(&all_hold_one);
	about_to_block(1);
	pthread_mutex_lock(&a); /* LOCK-A-IN-TWO */
	return arg;
}

int main(void) {
	pthread_t t1, t2;
	pthread_barrier_init(&all_hold_one, 0, 3);
	pthread_create(&t1, 0, one, 0);
	pthread_create(&t2, 0, two, 0);
	pthread_barrier_wait(&all_hold_one);
	wait_asleep(0);
	wait_asleep(1);
	puts("ready");
	fflush(stdout);
	pthread_join(t1, 0);
	pthread_join(t2, 0);
	return 0;
}
`

// Sleepers is a C program of n threads (main included) all blocked in
// pthread_cond_wait, for measuring the capture's cost.
func Sleepers(t testing.TB, n int) Program {
	t.Helper()
	return cProgram(t, "sleepers", sleepersC, "-DTHREADS="+itoa(n-1))
}

const sleepersC = `#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;
static pthread_barrier_t started;

static void *sleeper(void *arg) {
	pthread_mutex_lock(&m);
	pthread_barrier_wait(&started);
	pthread_cond_wait(&never, &m);
	return arg;
}

int main(void) {
	pthread_t t[THREADS];
	pthread_barrier_init(&started, 0, 2);
	for (int i = 0; i < THREADS; i++) {
		pthread_create(&t[i], 0, sleeper, 0);
		pthread_barrier_wait(&started);
	}
	puts("ready");
	fflush(stdout);
	pthread_join(t[0], 0);
	return 0;
}
`

func itoa(n int) string {
	var b []byte
	for {
		b = append([]byte{byte('0' + n%10)}, b...)
		if n /= 10; n == 0 {
			return string(b)
		}
	}
}
