package remote_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/remote"
)

// A snapshot is the host's directory: its entries with their types and the
// files asked for, read in one command; nothing else exists in it.
func TestSnapshot(t *testing.T) {
	h, c := testConn(t)
	dir := h.Local("snap")
	for name, body := range map[string]string{"Makefile": "test:\n\t./t\n", "go.mod": "module x\n", "we ird\x01": "x", "sub/f": ""} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	remoteDir := path.Join(h.Root, "snap")
	s, err := c.Snapshot(context.Background(), remoteDir, []string{"Makefile", "CMakeLists.txt", "sub"})
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := s.Stat(remoteDir + "/sub"); err != nil || !fi.IsDir() {
		t.Errorf("sub: %v %v", fi, err)
	}
	if fi, err := s.Stat(remoteDir + "/go.mod"); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("go.mod: %v %v", fi, err)
	}
	f, err := s.Open(remoteDir + "/Makefile")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(f)
	if string(b) != "test:\n\t./t\n" {
		t.Errorf("Makefile read as %q", b)
	}
	if _, err := s.Open(remoteDir + "/go.mod"); err == nil {
		t.Error("go.mod was not asked for, yet it opened")
	}
	if _, err := s.Stat(remoteDir + "/CMakeLists.txt"); err == nil {
		t.Error("a file the host lacks exists in the snapshot")
	}
	entries, _ := s.ReadDir(remoteDir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if got := strings.Join(names, ","); got != "Makefile,go.mod,sub,we ird\x01" {
		t.Errorf("entries %q", got)
	}
	_, err = c.Snapshot(context.Background(), path.Join(h.Root, "nosuch"), nil)
	if err == nil || !strings.Contains(err.Error(), "no such directory") || !strings.Contains(err.Error(), "on "+h.Name) {
		t.Errorf("a missing directory: %v", err)
	}
	if _, err := c.Snapshot(context.Background(), "relative/dir", nil); err == nil || !strings.Contains(err.Error(), "absolute") {
		t.Errorf("a relative directory: %v", err)
	}
}

// Files on the host: created only where none is (never overwritten), read
// bounded, removed; the core settings are the host's.
func TestHostFiles(t *testing.T) {
	h, c := testConn(t)
	ctx := context.Background()
	p := path.Join(h.Root, "created")
	t.Cleanup(func() { os.Remove(h.Local("created")) })
	if err := c.CreateFile(ctx, p, "first\n"); err != nil {
		t.Fatal(err)
	}
	if err := c.CreateFile(ctx, p, "second\n"); !errors.Is(err, remote.ErrExist) {
		t.Errorf("creating it again: %v", err)
	}
	if b, _ := os.ReadFile(h.Local("created")); string(b) != "first\n" {
		t.Errorf("the file holds %q", b)
	}
	data, truncated, err := c.ReadFile(ctx, p, 3)
	if err != nil || string(data) != "fir" || !truncated {
		t.Errorf("bounded read: %q %v %v", data, truncated, err)
	}
	if data, truncated, err = c.ReadFile(ctx, p, 100); string(data) != "first\n" || truncated || err != nil {
		t.Errorf("whole read: %q %v %v", data, truncated, err)
	}
	if err := c.RemoveFile(ctx, p); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.ReadFile(ctx, p, 100); err == nil || !strings.Contains(err.Error(), "on "+h.Name) {
		t.Errorf("reading a removed file: %v", err)
	}
	pattern, _, err := c.CoreSettings(ctx)
	local, _ := os.ReadFile("/proc/sys/kernel/core_pattern")
	if err != nil || pattern != strings.TrimSpace(string(local)) {
		t.Errorf("core_pattern %q, %v (the kernel's is %q)", pattern, err, local)
	}
}
