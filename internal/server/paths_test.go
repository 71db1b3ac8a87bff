package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPathArgumentsValidated: every tool that takes a path refuses one that
// does not exist, or is a directory where a file is needed (or a file where
// a directory is), with an error that names the path and quotes nothing of
// the environment.
func TestPathArgumentsValidated(t *testing.T) {
	const leak = "zz-env-value-must-not-appear-zz"
	t.Setenv("TRIAGE_AUDIT_UNRELATED", leak)
	dir := t.TempDir()
	file := filepath.Join(dir, "plain.txt")
	if err := os.WriteFile(file, []byte("not a binary\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A file of no known format, reached through a symlink: an error names
	// it and what it looks like, never a byte of what it holds.
	const content = "zz-file-content-must-not-appear-zz"
	secret := filepath.Join(dir, "secret")
	if err := os.WriteFile(secret, []byte(content+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.core")
	if err := os.Symlink(secret, link); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "no-such-thing")
	srv, _ := New(newServices(t, nil), Options{})
	cs := connect(t, srv, nil)
	cases := []struct {
		tool string
		args map[string]any
		path string
	}{
		{"run", map[string]any{"program": missing}, missing},
		{"run", map[string]any{"program": dir}, dir},
		{"run", map[string]any{"program": "true", "cwd": missing}, missing},
		{"run", map[string]any{"program": "true", "cwd": file}, file},
		{"process_start", map[string]any{"program": missing}, missing},
		{"process_start", map[string]any{"program": "true", "cwd": file}, file},
		{"build", map[string]any{"project_dir": missing}, missing},
		{"build", map[string]any{"project_dir": file}, file},
		{"test", map[string]any{"project_dir": missing}, missing},
		{"debug_attach", map[string]any{"program": missing}, missing},
		{"debug_attach", map[string]any{"program": dir}, dir},
		{"debug_attach", map[string]any{"program": "/bin/true", "core": missing}, missing},
		{"dump_open", map[string]any{"core": missing, "program": "/bin/true"}, missing},
		{"dump_open", map[string]any{"core": dir, "program": "/bin/true"}, dir},
		{"dump_open", map[string]any{"vmcore": missing, "vmlinux": file}, missing},
		{"crash_report_show", map[string]any{"path": missing}, missing},
		{"crash_report_show", map[string]any{"path": dir}, dir},
		{"crash_report_show", map[string]any{"path": link}, link},
		{"dump_open", map[string]any{"core": link, "program": "/bin/true"}, link},
		{"dump_open", map[string]any{"vmcore": link, "vmlinux": file}, link},
		{"debug_attach", map[string]any{"program": "/bin/true", "core": link}, link},
	}
	for _, tc := range cases {
		res, text := callText(t, cs, tc.tool, tc.args)
		if !res.IsError && !strings.HasPrefix(text, "FAILED") && !strings.HasPrefix(text, "ERROR") {
			t.Errorf("%s %v: not refused: %.300s", tc.tool, tc.args, text)
		}
		if !strings.Contains(text, tc.path) {
			t.Errorf("%s %v: the error does not name %s: %.300s", tc.tool, tc.args, tc.path, text)
		}
		if strings.Contains(text, content[:8]) {
			t.Errorf("%s %v: the error quotes the file: %.300s", tc.tool, tc.args, text)
		}
		if strings.Contains(text, leak) {
			t.Errorf("%s %v: the error quotes the environment: %.300s", tc.tool, tc.args, text)
		}
	}
}
