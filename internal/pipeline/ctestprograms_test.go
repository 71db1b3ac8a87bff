package pipeline

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/triage-dev/triage/internal/testreport"
	"github.com/triage-dev/triage/internal/toolchain"
)

// TestCTestListArgv: the listing keeps the options that choose the
// configuration, the build directory and the tests, and drops the rest.
func TestCTestListArgv(t *testing.T) {
	step := toolchain.Step{Name: toolchain.StepTest, Format: testreport.FormatCTest,
		Argv: []string{"/usr/bin/ctest", "--output-on-failure", "-C", "Debug", "-R", "^a$", "--parallel", "4", "-U", "-E", "slow",
			"--output-junit", "/b/j.xml", "--test-dir", "/b", "-L"}}
	got := ctestListArgv(step)
	want := []string{"/usr/bin/ctest", "--show-only=json-v1", "-C", "Debug", "-R", "^a$", "-U", "-E", "slow", "--test-dir", "/b"}
	if !slices.Equal(got, want) {
		t.Errorf("argv %q, want %q", got, want)
	}
	if !isCTestStep(step) {
		t.Error("a ctest step is not one")
	}
	for _, s := range []toolchain.Step{
		{Name: toolchain.StepBuild, Format: testreport.FormatCTest, Argv: []string{"ctest"}},
		{Name: toolchain.StepTest, Format: testreport.FormatCTest, Argv: []string{"make", "test"}},
		{Name: toolchain.StepTest, Format: testreport.FormatMeson, Argv: []string{"ctest"}},
	} {
		if isCTestStep(s) {
			t.Errorf("%+v taken for ctest's test step", s)
		}
	}
}

// TestParseCTestList: each test's program is the first ELF executable of
// its command in the build directory (what a launcher runs), else its
// command's first word when that is an ELF executable by absolute path (a
// script's crash is its interpreter's); its directory its
// WORKING_DIRECTORY.
func TestParseCTestList(t *testing.T) {
	exe, err := os.Executable() // this test binary: an ELF executable
	if err != nil {
		t.Fatal(err)
	}
	bdir := t.TempDir()
	script, prog := filepath.Join(bdir, "run.sh"), filepath.Join(bdir, "bin", "prog")
	if err := os.WriteFile(script, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := copyFile(exe, prog); err != nil {
		t.Fatal(err)
	}
	data := []byte(`{"kind":"ctestInfo","tests":[
		{"name":"unit","command":["` + exe + `","--fast"],"properties":[{"name":"LABELS","value":["a"]},{"name":"ENVIRONMENT","value":["A=1","B=x=y","bad"]},{"name":"WORKING_DIRECTORY","value":"/b/tests"}]},
		{"name":"launched","command":["` + exe + `","-E","env","X=1","` + prog + `"]},
		{"name":"script","command":["` + script + `"]},
		{"name":"relative","command":["unit"],"properties":[{"name":"WORKING_DIRECTORY","value":"/b"}]},
		{"name":"none"}]}`)
	progs := parseCTestList(data, bdir)
	if got := progs.of("unit"); got.Exe != exe || got.Dir != "/b/tests" {
		t.Errorf("unit: %+v, want %s in /b/tests", got, exe)
	}
	// Its command and environment, for a rerun of it alone (memtest.go).
	if got := progs.of("unit"); !slices.Equal(got.Argv, []string{exe, "--fast"}) || len(got.Env) != 2 || got.Env["A"] != "1" || got.Env["B"] != "x=y" {
		t.Errorf("unit: argv %q env %q, want the command and ENVIRONMENT", got.Argv, got.Env)
	}
	if got := progs.of("launched"); got.Exe != prog || !slices.Equal(got.Argv, []string{prog}) {
		t.Errorf("launched: %+v, want %s, what the launcher runs, without the launcher", got, prog)
	}
	if got := progs.of("relative"); got.Exe != "" || got.Dir != "/b" {
		t.Errorf("relative: %+v, want no program, in /b", got)
	}
	if _, ok := progs["script"]; ok {
		t.Errorf("script: %+v, want nothing (not an ELF executable)", progs["script"])
	}
	want := []string{exe, prog}
	slices.Sort(want)
	if got := progs.exes(); !slices.Equal(got, want) {
		t.Errorf("exes %q, want %q", got, want)
	}
	if parseCTestList([]byte("not json"), bdir) != nil || parseCTestList([]byte(`{"tests":[]}`), bdir) != nil {
		t.Error("a listing of no tests gave programs")
	}
}

// copyFile copies the file from to to, making to's directory.
func copyFile(from, to string) error {
	data, err := os.ReadFile(from)
	if err == nil {
		err = os.MkdirAll(filepath.Dir(to), 0o755)
	}
	if err == nil {
		err = os.WriteFile(to, data, 0o755)
	}
	return err
}
