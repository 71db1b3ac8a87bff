package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// --log-file is the user's alone: it names the programs run, their
// directories, and the page's one-time login URLs. A file of the user's made
// with wider modes is tightened.
func TestLogFileIsPrivate(t *testing.T) {
	dir := t.TempDir()
	fresh := filepath.Join(dir, "new.log")
	wide := filepath.Join(dir, "old.log")
	if err := os.WriteFile(wide, []byte("earlier\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{fresh, wide} {
		g := &globals{logLevel: "info", logFile: path}
		log, err := g.logger(io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		log.Info("login", "url", "http://127.0.0.1:7007/ui/login?code=x")
		g.logClose()
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != 0o600 {
			t.Errorf("%s: mode %04o, want 0600", path, got)
		}
	}
	if b, _ := os.ReadFile(wide); len(b) <= len("earlier\n") {
		t.Errorf("the log was not appended to: %q", b)
	}
}
