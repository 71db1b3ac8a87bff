package coverage

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeTool writes an executable script named name into dir that records
// its run in dir/ran-NAME and prints out.
func fakeTool(t *testing.T, dir, name, out string) {
	t.Helper()
	script := "#!/bin/sh\n: > " + filepath.Join(dir, "ran-"+name) + "\nprintf '" + out + "'\n"
	if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
}

// The versioned tools' names carry their LLVM major: they are taken from
// PATH without being run; the sysroot question is not asked either.
func TestFindLLVMToolsTakesVersionedNamesUnasked(t *testing.T) {
	bin := t.TempDir()
	fakeTool(t, bin, "rustc", `rustc 1.95.0\nhost: x86_64-unknown-linux-gnu\nLLVM version: 22.1.2\n`)
	fakeTool(t, bin, "llvm-profdata-22", "")
	fakeTool(t, bin, "llvm-cov-22", "")
	tools, err := FindLLVMTools(context.Background(), t.TempDir(), map[string]string{"PATH": bin, "RUSTC": ""})
	if err != nil {
		t.Fatal(err)
	}
	if tools.Profdata != "llvm-profdata-22" || tools.Cov != "llvm-cov-22" || tools.Major != 22 {
		t.Errorf("tools %+v", tools)
	}
	for _, name := range []string{"llvm-profdata-22", "llvm-cov-22"} {
		if _, err := os.Stat(filepath.Join(bin, "ran-"+name)); err == nil {
			t.Errorf("%s was run", name)
		}
	}
	if _, err := os.Stat(filepath.Join(bin, "ran-rustc")); err != nil {
		t.Errorf("rustc was not asked its LLVM version: %v", err)
	}
}

// Without the versioned pair, an unversioned one is asked its version and
// refused when it is another LLVM's, naming everything tried.
func TestFindLLVMToolsRefusesAnotherMajor(t *testing.T) {
	bin := t.TempDir()
	fakeTool(t, bin, "rustc", `rustc 1.95.0\nhost: x86_64-unknown-linux-gnu\nLLVM version: 22.1.2\n`)
	fakeTool(t, bin, "llvm-profdata", `LLVM version 14.0.6\n`)
	fakeTool(t, bin, "llvm-cov", `LLVM version 14.0.6\n`)
	_, err := FindLLVMTools(context.Background(), t.TempDir(), map[string]string{"PATH": bin, "RUSTC": ""})
	if err == nil {
		t.Fatal("LLVM 14's tools were taken for LLVM 22's profiles")
	}
	for _, want := range []string{"llvm-profdata-22: not found", "llvm-profdata: LLVM 14", "apt-get install llvm-22"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error lacks %q: %v", want, err)
		}
	}
}
