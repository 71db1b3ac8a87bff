package toolpath

import (
	"os"
	"path/filepath"
	"slices"
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

// TestLLVMPrefersPlainThenNewest: with lldb-14 and lldb-17 on PATH, lldb-17
// is chosen; a plain lldb wins over both.
func TestLLVMPrefersPlainThenNewest(t *testing.T) {
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
	if p, ok := LLVM("lldb"); !ok || p != want {
		t.Errorf("LLVM(lldb) = %q %v, want %q", p, ok, want)
	}
	want = mk("lldb")
	if p, ok := LLVM("lldb"); !ok || p != want {
		t.Errorf("LLVM(lldb) = %q %v, want %q", p, ok, want)
	}
	if _, ok := LLVM("lldb-dap"); ok {
		t.Error("found an lldb-dap that is not there")
	}
}
