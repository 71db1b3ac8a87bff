package run_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/testutil/mcptest"
	"github.com/triage-dev/triage/internal/testutil/nativeprojects"
	"github.com/triage-dev/triage/internal/workflow/run"
)

// These tests crash real programs of small projects, built with the
// project's own toolchain, and check that the verdict names the first
// frame in the project's code with file:line, not the runtime's.

// requireTool fails in CI (where everything is installed) and skips elsewhere.
func requireTool(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s not found", name)
		}
		t.Skipf("%s not found", name)
	}
}

// build runs a build command in dir.
func build(t *testing.T, dir string, argv ...string) {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CARGO_TERM_COLOR=never")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(argv, " "), err, out)
	}
}

// libcCrash dies inside the C library: strlen(NULL) faults in libc's
// strlen, free() of a bad pointer aborts in libc's malloc checks.
const libcCrash = `#include <stdlib.h>
#include <string.h>
int crash_here(const char *p) { return (int)strlen(p); }
void bad_free(void) { int x; free(&x); }
int main(int argc, char **argv) {
	if (argc > 1) bad_free();
	return crash_here(NULL);
}
`

func cProject(t *testing.T) string {
	t.Helper()
	requireTool(t, "gcc")
	dir := nativeprojects.Write(t, map[string]string{"app.c": libcCrash})
	build(t, dir, "gcc", "-g", "-O0", "-o", "app", "app.c")
	return dir
}

const rustMain = `fn boom(n: u32) {
    if n == 0 {
        std::process::abort();
    }
    boom(n - 1)
}

#[inline(never)]
#[allow(unconditional_recursion)]
fn recurse(n: u64, buf: &mut [u8; 4096]) -> u64 {
    let mut local = [0u8; 4096];
    local[0] = buf[0].wrapping_add(n as u8);
    recurse(n + 1, &mut local) + local[1] as u64
}

fn main() {
    if std::env::args().nth(1).as_deref() == Some("overflow") {
        let mut b = [0u8; 4096];
        println!("{}", recurse(0, &mut b));
    } else {
        boom(2);
    }
}
`

const goMain = `package main

import (
	"os"
)

// m is never made: a write to it panics.
var m map[string]int

func write(k string) {
	m[k] = 1
}

func main() {
	if len(os.Args) > 1 {
		// main waits forever: a deferred Done would let it reach
		// write's own panic before the goroutine's is printed.
		go func() {
			panic("boom in goroutine")
		}()
		select {}
	}
	write("x")
}
`

const goTest = `package main

import "testing"

func TestWrite(t *testing.T) {
	write("y")
}
`

func TestCrashVerdictNamesProjectFrame(t *testing.T) {
	c := mcptest.Connect(t, nil)
	type crash struct {
		name string
		args []string
		want string // the verdict line starts with it
	}
	check := func(t *testing.T, dir, program string, crashes ...crash) {
		for _, cr := range crashes {
			t.Run(cr.name, func(t *testing.T) {
				r := c.Call("run", map[string]any{"program": program, "args": cr.args, "project_dir": dir, "cwd": t.TempDir()})
				if !strings.HasPrefix(r.FirstLine(), cr.want) {
					t.Errorf("verdict %q, want it to start with %q\n%s", r.FirstLine(), cr.want, r.Text)
				}
			})
		}
	}
	t.Run("c", func(t *testing.T) {
		dir := cProject(t)
		check(t, dir, filepath.Join(dir, "app"),
			crash{"segv in strlen", nil, "CRASHED (SIGSEGV) in crash_here at app.c:3"},
			crash{"abort in free", []string{"free"}, "CRASHED (SIGABRT, glibc"},
		)
	})
	t.Run("rust", func(t *testing.T) {
		requireTool(t, "cargo")
		dir := nativeprojects.Write(t, map[string]string{
			"Cargo.toml":  "[package]\nname = \"rcrash\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
			"src/main.rs": rustMain,
		})
		build(t, dir, "cargo", "build", "--offline", "-q")
		check(t, dir, filepath.Join(dir, "target", "debug", "rcrash"),
			crash{"process::abort", nil, "CRASHED (SIGABRT) in rcrash::boom at main.rs:3"},
			crash{"stack overflow", []string{"overflow"}, "CRASHED (SIGABRT, Rust stack overflow) in rcrash::recurse at main.rs:1"},
		)
	})
	t.Run("go", func(t *testing.T) {
		requireTool(t, "go")
		dir := nativeprojects.Write(t, map[string]string{"go.mod": "module example.com/gp\n\ngo 1.22\n", "main.go": goMain})
		build(t, dir, "go", "build", "-o", "gp", ".")
		check(t, dir, filepath.Join(dir, "gp"),
			crash{"nil map write", nil, "CRASHED (Go panic, exit 2) in main.write at main.go:11"},
			crash{"panic in a goroutine", []string{"goroutine"}, "CRASHED (Go panic, exit 2) in main.main.func1 at main.go:19"},
		)
	})
}

func TestCrashVerdictOfAbortInLibraryNamesCaller(t *testing.T) {
	c := mcptest.Connect(t, nil)
	dir := cProject(t)
	r := c.Call("run", map[string]any{"program": filepath.Join(dir, "app"), "args": []string{"free"}, "cwd": dir})
	if !strings.Contains(r.FirstLine(), " in bad_free at app.c:4") {
		t.Errorf("verdict %q does not name bad_free at app.c:4\n%s", r.FirstLine(), r.Text)
	}
}

func TestGoTestPanicVerdictHasFileLine(t *testing.T) {
	requireTool(t, "go")
	c := mcptest.Connect(t, nil)
	dir := nativeprojects.Write(t, map[string]string{"go.mod": "module example.com/gp\n\ngo 1.22\n", "main.go": goMain, "main_test.go": goTest})
	r := c.Call("test", map[string]any{"project_dir": dir})
	if want := "CRASHED: test binary panicked in example.com/gp.write at main.go:11 while running"; !strings.HasPrefix(r.FirstLine(), want) {
		t.Errorf("verdict %q, want it to start with %q\n%s", r.FirstLine(), want, r.Text)
	}
}

// A relative program runs in project_dir; its backtrace, its hints and
// the calls the hints suggest must resolve it there too, not against
// triage's own working directory.
func TestRunRelativeProgramResolvesInProjectDir(t *testing.T) {
	c := mcptest.Connect(t, nil)
	dir := cProject(t)
	r := c.Call("run", map[string]any{"program": "./app", "project_dir": dir})
	if want := "CRASHED (SIGSEGV) in crash_here at app.c:3"; !strings.HasPrefix(r.FirstLine(), want) {
		t.Fatalf("verdict %q, want it to start with %q\n%s", r.FirstLine(), want, r.Text)
	}
	var out run.RunOutput
	r.Decode(t, &out)
	if out.Core == "" {
		t.Fatalf("no core:\n%s", r.Text)
	}
	var hint map[string]any
	for _, h := range out.Verdict.Hints {
		if h.Tool == "dump_open" {
			hint = h.Args
		}
	}
	if hint == nil || hint["program"] != filepath.Join(dir, "app") || !filepath.IsAbs(hint["core"].(string)) {
		t.Fatalf("dump_open hint %v, want the absolute program %s\n%s", hint, filepath.Join(dir, "app"), r.Text)
	}
	if open := c.Call("dump_open", hint); open.IsError {
		t.Errorf("dump_open with the hint's arguments failed:\n%s", open.Text)
	}
	// The relative program with project_dir, as the run was given.
	rel := map[string]any{"core": out.Core, "program": "./app", "project_dir": dir}
	if att := c.Call("debug_attach", rel); att.IsError {
		t.Errorf("debug_attach core + ./app in project_dir failed:\n%s", att.Text)
	}
	show := c.Call("crash_report_show", map[string]any{"path": out.Core, "program": "./app", "project_dir": dir})
	if show.IsError || !strings.Contains(show.Text, "crash_here at app.c:3") {
		t.Errorf("crash_report_show with ./app in project_dir:\n%s", show.Text)
	}
}

// process_start resolves ./app in project_dir like run.
func TestProcessStartRelativeProgramResolvesInProjectDir(t *testing.T) {
	c := mcptest.Connect(t, nil)
	dir := cProject(t)
	start := c.Call("process_start", map[string]any{"program": "./app", "project_dir": dir})
	if start.IsError {
		t.Fatal(start.Text)
	}
	id, _ := start.Out["id"].(string)
	out := c.Call("process_output", map[string]any{"id": id, "wait_s": 30})
	for out.Out["running"] == true { // each call waits for the next line or the end
		out = c.Call("process_output", map[string]any{"id": id, "cursor": out.Out["next_cursor"], "wait_s": 30})
	}
	if want := "CRASHED (SIGSEGV) in crash_here at app.c:3"; !strings.HasPrefix(fmt.Sprint(out.Out["verdict"]), want) {
		t.Errorf("verdict %q, want it to start with %q\n%s", out.Out["verdict"], want, out.Text)
	}
}

// A relative core and program, with project_dir, open in dump_open and
// debug_attach as they do with absolute paths.
func TestRelativeCorePathsResolveInProjectDir(t *testing.T) {
	c := mcptest.Connect(t, nil)
	dir := cProject(t)
	r := c.Call("run", map[string]any{"program": "./app", "project_dir": dir})
	var out run.RunOutput
	r.Decode(t, &out)
	if out.Core == "" {
		t.Fatalf("the run left no core:\n%s", r.Text)
	}
	// triage keeps the cores it causes out of the project (in the store);
	// a core the user has in the project directory is what this is about.
	const core = "core.user"
	data, err := os.ReadFile(out.Core)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, core), data, 0o600); err != nil {
		t.Fatal(err)
	}
	open := c.Call("dump_open", map[string]any{"core": core, "program": "./app", "project_dir": dir})
	if open.IsError || !strings.Contains(open.Text, filepath.Join(dir, core)) || !strings.Contains(open.Text, filepath.Join(dir, "app")) {
		t.Errorf("dump_open with a relative core and ./app in project_dir:\n%s", open.Text)
	}
	if rep := c.Call("dump_report", nil); !strings.Contains(rep.Text, "crash_here") || !strings.Contains(rep.Text, "app.c:3") {
		t.Errorf("dump_report does not name crash_here at app.c:3:\n%s", rep.Text)
	}
	att := c.Call("debug_attach", map[string]any{"core": core, "program": "./app", "cwd": dir})
	if att.IsError {
		t.Errorf("debug_attach with a relative core and ./app in cwd:\n%s", att.Text)
	}
}
