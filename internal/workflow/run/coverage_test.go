package run_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/config"
	"github.com/triage-dev/triage/internal/testutil"
	"github.com/triage-dev/triage/internal/testutil/mcptest"
	"github.com/triage-dev/triage/internal/testutil/nativeprojects"
)

// coverModule writes a Go module of n packages, each with a function its
// test runs half of, and a failing test in the first that runs the other
// branch.
func coverModule(t testing.TB, n int) string {
	dir := t.TempDir()
	files := map[string]string{"go.mod": "module example.com/cov\n\ngo 1.22\n"}
	for i := range n {
		pkg := fmt.Sprintf("p%d", i)
		files[pkg+"/"+pkg+".go"] = fmt.Sprintf("package %s\n\nfunc Sign(x int) int {\n\tif x < 0 {\n\t\treturn -1\n\t}\n\treturn 1\n}\n", pkg)
		files[pkg+"/"+pkg+"_test.go"] = fmt.Sprintf("package %s\n\nimport \"testing\"\n\nfunc TestSign(t *testing.T) {\n\tif Sign(2) != 1 {\n\t\tt.Fatal(\"sign\")\n\t}\n}\n", pkg)
	}
	files["p0/fail_test.go"] = "package p0\n\nimport \"testing\"\n\nfunc TestFails(t *testing.T) {\n\tif Sign(-2) != -2 {\n\t\tt.Fatal(\"boom\")\n\t}\n}\n"
	for name, text := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// test with coverage answers the totals and the files least covered first,
// with a failing test, and what that test ran alone; output_get then gives
// a file's uncovered lines and lists the files under a path, and the
// failed test's path, from the stored run.
func TestTestCoverageThenOutputGet(t *testing.T) {
	dir := coverModule(t, 2)
	const failedPath = "the failing test TestFails ran: p0/p0.go: Sign 3-6 → failed at p0/fail_test.go:7"
	c := mcptest.Connect(t, &config.Config{})
	r := c.Call("test", map[string]any{"project_dir": dir, "coverage": "p0"})
	if r.Outcome != "failed" {
		t.Fatalf("outcome %s:\n%s", r.Outcome, r.Text)
	}
	for _, want := range []string{
		"COVERAGE (go): 80.0% of lines (8 of 10) in 2 files; 83.3% of statements (5 of 6)",
		`files under "p0", least covered first:`, "100.0%  p0/p0.go (5 of 5 lines)", failedPath,
	} {
		if !strings.Contains(r.Text, want) {
			t.Errorf("the answer lacks %q:\n%s", want, r.Text)
		}
	}
	if strings.Contains(r.Text, "p1/p1.go") {
		t.Errorf("the filter p0 listed p1:\n%s", r.Text)
	}
	cov, _ := r.Out["coverage"].(map[string]any)
	if cov["covered"] != 8.0 || cov["lines"] != 10.0 || cov["files_matched"] != 1.0 || cov["failed_path"] != failedPath {
		t.Errorf("structured coverage %v", cov)
	}
	id, _ := r.Out["output_id"].(string)
	g := c.Call("output_get", map[string]any{"output_id": id, "coverage": filepath.Join(dir, "p1/p1.go")})
	if g.IsError || !strings.Contains(g.Text, "p1/p1.go: 60.0% of lines (3 of 5), 2 of 3 statements; uncovered lines: 5-6") {
		t.Errorf("output_get of a file:\n%s", g.Text)
	}
	l := c.Call("output_get", map[string]any{"output_id": id, "coverage": "."})
	if l.IsError || !strings.Contains(l.Text, "p0/p0.go") || !strings.Contains(l.Text, "p1/p1.go") || !strings.Contains(l.Text, failedPath) {
		t.Errorf("output_get of every file:\n%s", l.Text)
	}
	if e := c.Call("test", map[string]any{"project_dir": dir, "coverage": ".", "command": []string{"go", "test", "./..."}}); e.Outcome != "usage_error" || !strings.Contains(e.Text, "not by an explicit command") {
		t.Errorf("coverage with a command: %s %s", e.Outcome, e.Text)
	}
}

// BenchmarkGoCoverage alternates a `test` coverage run of a module of 20
// packages through an in-process MCP client with the toolchain's own
// coverage commands on the same module (the run, and its failed test's) (no test cache for either): what
// triage adds (target: ≤ 5% more wall time).
func BenchmarkGoCoverage(b *testing.B) {
	dir := coverModule(b, 20)
	cfg := &config.Config{}
	cfg.Store.Path = b.TempDir() + "/t.db"
	c := mcptest.Connect(b, cfg)
	args := map[string]any{"project_dir": dir, "coverage": ".", "args": []string{"-count=1"}}
	profile := filepath.Join(b.TempDir(), "c.out")
	// The toolchain's own commands for what triage answers: the run, and
	// the failed test's rerun alone for its path.
	own := func() {
		cmd := exec.Command("go", "test", "-json", "-count=1", "-covermode=atomic", "-coverpkg=./...", "-coverprofile="+profile, "./...")
		cmd.Dir = dir
		cmd.Run() // fails: p0's TestFails
		cmd = exec.Command("go", "test", "-count=1", "-covermode=atomic", "-coverpkg=./...", "-run=^TestFails$", "-coverprofile="+profile, "example.com/cov/p0")
		cmd.Dir = dir
		cmd.Run()
	}
	c.Call("test", args) // warm the build cache for both
	own()
	var triage, goTest []time.Duration
	ours := func() {
		start := time.Now()
		if r := c.Call("test", args); r.Outcome != "failed" {
			b.Fatal(r.Text)
		}
		triage = append(triage, time.Since(start))
	}
	theirs := func() {
		start := time.Now()
		own()
		goTest = append(goTest, time.Since(start))
	}
	// The order alternates so that neither side always runs on the
	// caches (and the machine's state) the other one left.
	for i := 0; b.Loop(); i++ {
		if i%2 == 0 {
			ours()
			theirs()
		} else {
			theirs()
			ours()
		}
	}
	mt, mg := testutil.Median(triage), testutil.Median(goTest)
	b.ReportMetric(float64(mt.Microseconds())/1000, "triage-ms")
	b.ReportMetric(float64(mg.Microseconds())/1000, "go-ms")
	b.ReportMetric(float64(mt-mg)*100/float64(mg), "overhead-%")
}

// A cargo crate's coverage run through the test tool: the answer has
// llvm-cov's totals over the crate's own file with the packaged dependency
// apart, and output_get names the lines of the function no test ran.
func TestCargoCoverageThenOutputGet(t *testing.T) {
	requireTool(t, "cargo")
	dir := nativeprojects.Write(t, nativeprojects.CargoCovered())
	c := mcptest.Connect(t, &config.Config{})
	r := c.Call("test", map[string]any{"project_dir": dir, "coverage": ".", "jobs": 1})
	if r.Outcome != "failed" {
		t.Fatalf("outcome %s:\n%s", r.Outcome, r.Text)
	}
	for _, want := range []string{
		"COVERAGE (llvm-cov): 73.9% of lines (17 of 23) in 1 files", "73.9%  src/lib.rs (17 of 23 lines)", "not counted: 1 vendored files",
	} {
		if !strings.Contains(r.Text, want) {
			t.Errorf("the answer lacks %q:\n%s", want, r.Text)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "target", "triage-coverage")); err != nil {
		t.Errorf("no target directory of its own: %v", err)
	}
	id, _ := r.Out["output_id"].(string)
	g := c.Call("output_get", map[string]any{"output_id": id, "coverage": "src/lib.rs"})
	if g.IsError || !strings.Contains(g.Text, "src/lib.rs: 73.9% of lines (17 of 23); uncovered lines: 6, 11-14, 33") {
		t.Errorf("output_get of src/lib.rs:\n%s", g.Text)
	}
}

// Without llvm tools of rustc's LLVM major, the test tool says so before
// building, naming what to install: PATH holds a rustc of LLVM 22 (whose
// sysroot has no llvm-tools) and nothing else.
func TestCargoCoverageWithoutLLVMTools(t *testing.T) {
	dir := nativeprojects.Write(t, nativeprojects.CargoCovered())
	bin := t.TempDir()
	rustc := "#!/bin/sh\nif [ \"$1\" = --print ]; then echo " + t.TempDir() + "; exit 0; fi\n" +
		"printf 'rustc 1.95.0\\nhost: x86_64-unknown-linux-gnu\\nLLVM version: 22.1.2\\n'\n"
	if err := os.WriteFile(filepath.Join(bin, "rustc"), []byte(rustc), 0o755); err != nil {
		t.Fatal(err)
	}
	c := mcptest.Connect(t, &config.Config{})
	r := c.Call("test", map[string]any{"project_dir": dir, "coverage": ".", "env": map[string]any{"PATH": bin}})
	if r.Outcome != "error" || !strings.Contains(r.Text, "llvm-profdata-22: not found") || !strings.Contains(r.Text, "apt-get install llvm-22") {
		t.Errorf("outcome %s, want an error naming the tools:\n%s", r.Outcome, r.Text)
	}
	if _, err := os.Stat(filepath.Join(dir, "target")); err == nil {
		t.Error("the crate was built before the refusal")
	}
}

// output_get with since compares two coverage runs by their ids: a run of
// every test covers Sign's negative branch, which a run of TestSign alone
// did not, and loses nothing; since needs coverage.
func TestCoverageSinceOlderRun(t *testing.T) {
	dir := coverModule(t, 2)
	c := mcptest.Connect(t, &config.Config{})
	old := c.Call("test", map[string]any{"project_dir": dir, "coverage": ".", "run": []string{"TestSign"}})
	cur := c.Call("test", map[string]any{"project_dir": dir, "coverage": "."})
	if old.Outcome != "ok" || cur.Outcome != "failed" {
		t.Fatalf("outcomes %s, %s: want ok, then failed (TestFails)\n%s", old.Outcome, cur.Outcome, cur.Text)
	}
	oldID, _ := old.Out["output_id"].(string)
	id, _ := cur.Out["output_id"].(string)
	g := c.Call("output_get", map[string]any{"output_id": id, "coverage": ".", "since": oldID})
	want := "COVERAGE since " + oldID + ": 60.0% → 80.0% of lines; 2 lines newly covered, 0 lost, in 1 files\n  p0/p0.go: +2 (5-6)\n"
	if g.IsError || g.Text != want {
		t.Errorf("output_get since:\n%s\nwant:\n%s", g.Text, want)
	}
	cov, _ := g.Out["coverage"].(map[string]any)
	ch, _ := cov["change"].(map[string]any)
	files, _ := ch["files"].([]any)
	if ch["gained"] != 2.0 || ch["lost"] != 0.0 || len(files) != 1 || fmt.Sprint(files[0]) != "map[gained:[[5 6]] path:p0/p0.go]" {
		t.Errorf("structured change %v", cov)
	}
	back := c.Call("output_get", map[string]any{"output_id": oldID, "coverage": filepath.Join(dir, "p0/p0.go"), "since": id})
	if back.IsError || !strings.Contains(back.Text, "0 lines newly covered, 2 lost") || !strings.Contains(back.Text, "p0/p0.go: -2 (5-6)") {
		t.Errorf("output_get since, the other way:\n%s", back.Text)
	}
	if e := c.Call("output_get", map[string]any{"output_id": id, "since": oldID}); e.Outcome != "usage_error" || !strings.Contains(e.Text, "give coverage too") {
		t.Errorf("since without coverage: %s %s", e.Outcome, e.Text)
	}
}

// A CMake project built by clang (CC) through the test tool: clang's
// source-based coverage, llvm-cov's figures, the failed CTest test's path,
// and output_get of a file's uncovered lines.
func TestClangCoverageThenOutputGet(t *testing.T) {
	nativeprojects.Need(t, "clang-22", "cmake")
	dir := nativeprojects.Write(t, map[string]string{
		"lib.c":  "int clamp(int x, int lo, int hi) {\n\tif (x < lo)\n\t\treturn lo;\n\tif (x > hi)\n\t\treturn hi;\n\treturn x;\n}\n\nint unused(int x) {\n\treturn x * 2;\n}\n",
		"test.c": "int clamp(int, int, int);\nint main(void) {\n\tif (clamp(5, 0, 10) != 5)\n\t\treturn 1;\n\treturn clamp(-1, 0, 10) == 1 ? 0 : 1;\n}\n",
		"CMakeLists.txt": "cmake_minimum_required(VERSION 3.16)\nproject(cov C)\nenable_testing()\nadd_library(lib STATIC lib.c)\n" +
			"add_executable(t test.c)\ntarget_link_libraries(t lib)\nadd_test(NAME clamp COMMAND t)\n",
	})
	c := mcptest.Connect(t, &config.Config{})
	r := c.Call("test", map[string]any{"project_dir": dir, "coverage": ".", "env": map[string]any{"CC": "clang-22"}})
	if r.Outcome != "failed" {
		t.Fatalf("outcome %s:\n%s", r.Outcome, r.Text)
	}
	for _, want := range []string{"COVERAGE (llvm-cov): 66.7% of lines (10 of 15) in 2 files", "the failing test clamp ran: lib.c: 1-4,6-7; test.c: 2-3,5-6"} {
		if !strings.Contains(r.Text, want) {
			t.Errorf("the answer lacks %q:\n%s", want, r.Text)
		}
	}
	id, _ := r.Out["output_id"].(string)
	g := c.Call("output_get", map[string]any{"output_id": id, "coverage": "lib.c"})
	if g.IsError || !strings.Contains(g.Text, "lib.c: 60.0% of lines (6 of 10); uncovered lines: 5, 9-11") {
		t.Errorf("output_get of lib.c:\n%s", g.Text)
	}
}
