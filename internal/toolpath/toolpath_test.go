package toolpath

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestNamesOrder(t *testing.T) {
	n := Names("lldb-dap", "lldb-vscode")
	if n[0] != "lldb-dap" || n[1] != "lldb-vscode" || n[2] != "lldb-dap-30" || n[3] != "lldb-vscode-30" {
		t.Errorf("Names = %v…", n[:4])
	}
	if !slices.Contains(n, "lldb-vscode-16") || n[len(n)-1] != "lldb-vscode-10" {
		t.Errorf("Names misses versions: %v", n)
	}
}

// TestFindPrefersPlainThenNewest: with lldb-14 and lldb-17 on PATH, lldb-17
// is chosen; a plain lldb wins over both.
func TestFindPrefersPlainThenNewest(t *testing.T) {
	dir := t.TempDir()
	mk := func(name string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	mk("lldb-14")
	want := mk("lldb-17")
	t.Setenv("PATH", dir)
	if p, err := LLDB.Find(); err != nil || p != want {
		t.Errorf("LLDB.Find() = %q %v, want %q", p, err, want)
	}
	want = mk("lldb")
	if p, err := LLDB.Find(); err != nil || p != want {
		t.Errorf("LLDB.Find() = %q %v, want %q", p, err, want)
	}
	mk("lldb-vscode-16")
	want = mk("lldb-dap-22")
	if p, err := LLDBDAP.Find(); err != nil || p != want {
		t.Errorf("LLDBDAP.Find() = %q %v, want lldb-dap-22 before lldb-vscode-16", p, err)
	}
	only := filepath.Join(dir, "only-vscode")
	if err := os.MkdirAll(only, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "lldb-vscode-16"), filepath.Join(only, "lldb-vscode-16")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", only)
	if p, err := LLDBDAP.Find(); err != nil || filepath.Base(p) != "lldb-vscode-16" {
		t.Errorf("LLDBDAP.Find() with lldb-vscode-16 alone = %q %v", p, err)
	}
	t.Setenv("PATH", dir)
	t.Setenv("TRIAGE_DAP_ADAPTER", "lldb-vscode-16")
	if p, err := LLDBDAP.Find(); err != nil || filepath.Base(p) != "lldb-vscode-16" {
		t.Errorf("LLDBDAP.Find() with TRIAGE_DAP_ADAPTER=lldb-vscode-16: %q %v", p, err)
	}
	t.Setenv("TRIAGE_DAP_ADAPTER", filepath.Join(dir, "nosuch-dap"))
	if _, err := LLDBDAP.Find(); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "TRIAGE_DAP_ADAPTER") {
		t.Errorf("LLDBDAP.Find() with TRIAGE_DAP_ADAPTER naming nothing: %v, want ErrNotFound naming the variable", err)
	}
	t.Setenv("TRIAGE_DAP_ADAPTER", "")
	if p, err := LLDBVSCode.Find(); err != nil || filepath.Base(p) != "lldb-vscode-16" {
		t.Errorf("LLDBVSCode.Find() = %q %v, want lldb-vscode-16", p, err)
	}
	t.Setenv("PATH", t.TempDir())
	_, err := LLDBDAP.Find()
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "apt-get install lldb-16") {
		t.Errorf("LLDBDAP.Find() with none there: %v, want ErrNotFound saying what to install", err)
	}
}

// TestDlvFoundWhereGoInstallPutsIt: dlv is found in $HOME/go/bin when it
// is not on PATH, by every caller (the doctor used to miss it there).
func TestDlvFoundWhereGoInstallPutsIt(t *testing.T) {
	home := t.TempDir()
	bin := filepath.Join(home, "go", "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(bin, "dlv")
	if err := os.WriteFile(want, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("PATH", t.TempDir())
	if p, err := Dlv.Find(); err != nil || p != want {
		t.Errorf("Dlv.Find() = %q %v, want %q", p, err, want)
	}
	if c := Dlv.Candidates(); c[len(c)-1] != want {
		t.Errorf("Candidates() = %v, want %s last", c, want)
	}
}
