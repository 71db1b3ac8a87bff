package pipeline

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/triage-dev/triage/internal/testreport"
	"github.com/triage-dev/triage/internal/toolchain"
)

// TestStepTestPrograms: a meson test step's tests' programs come from the
// build directory's meson-info/intro-tests.json, by the name meson test
// prints (plain, or "PROJECT:SUITES / NAME" when the run has several
// suites); a test whose command is a script has no program, a test with a
// workdir runs there, and a name two tests share is known only with its
// suites. Other runners name none.
func TestStepTestPrograms(t *testing.T) {
	exe, err := os.Executable() // an ELF executable
	if err != nil {
		t.Fatal(err)
	}
	bdir := t.TempDir()
	script := filepath.Join(bdir, "run.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nexec true\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	intro := `[
 {"cmd": ["` + exe + `", "--arg"], "env": {}, "name": "unit", "workdir": null, "suite": ["proj"], "protocol": "exitcode"},
 {"cmd": ["` + script + `"], "name": "scripted", "workdir": "/work/dir", "suite": ["proj:slow", "proj:io"]},
 {"cmd": ["` + exe + `"], "name": "twice", "workdir": null, "suite": ["sub:a"]},
 {"cmd": ["/no/such/prog"], "name": "twice", "workdir": null, "suite": ["sub:b"]}
]`
	if err := os.MkdirAll(filepath.Join(bdir, "meson-info"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bdir, "meson-info", "intro-tests.json"), []byte(intro), 0o644); err != nil {
		t.Fatal(err)
	}
	step := toolchain.Step{Name: toolchain.StepTest, Argv: []string{"meson", "test", "-C", bdir}, Dir: bdir,
		Format: testreport.FormatMeson, ReportFile: filepath.Join(bdir, "meson-logs", "testlog.json"), ReportFormat: toolchain.MesonTestlogFormat}
	progs := stepTestPrograms(step)
	for name, want := range map[string]testProgram{
		"unit":                    {Exe: exe},
		"proj / unit":             {Exe: exe},
		"scripted":                {Dir: "/work/dir"},
		"proj:slow+io / scripted": {Dir: "/work/dir"},
		"sub:a / twice":           {Exe: exe},
		"sub:b / twice":           {},
		"twice":                   {},
		"nosuch":                  {},
	} {
		if got := progs.of(name); got.Exe != want.Exe || got.Dir != want.Dir {
			t.Errorf("of(%q) = %+v, want %+v", name, got, want)
		}
	}
	// The command from the program on: memtest.go reruns it alone.
	if got := progs.of("unit").Argv; !reflect.DeepEqual(got, []string{exe, "--arg"}) {
		t.Errorf("of(unit).Argv = %q, want the program and --arg", got)
	}
	if got := progs.exes(); !reflect.DeepEqual(got, []string{exe}) {
		t.Errorf("exes = %q, want %q", got, exe)
	}
	rep := &testreport.Report{Cases: []testreport.Case{
		{Name: "unit", Status: testreport.Crashed},
		{Name: "scripted", Status: testreport.Crashed},
		{Name: "proj:slow+io / scripted", Status: testreport.Passed},
	}}
	if got := progs.dirsOf(rep); !reflect.DeepEqual(got, []string{"/work/dir"}) {
		t.Errorf("dirsOf = %q, want the crashed scripted test's /work/dir", got)
	}

	// -C relative to the step's directory, with no report file.
	step.ReportFile, step.Argv, step.Dir = "", []string{"meson", "test", "-C", filepath.Base(bdir)}, filepath.Dir(bdir)
	if got := stepTestPrograms(step).of("unit"); got.Exe != exe {
		t.Errorf("by -C: of(unit) = %+v", got)
	}
	if got := stepTestPrograms(toolchain.Step{Name: toolchain.StepTest, Argv: []string{"ctest"}, Dir: bdir, Format: "ctest"}); got != nil {
		t.Errorf("ctest's programs: %v, want none said", got)
	}
}
