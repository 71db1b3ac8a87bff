package remote_test

import (
	"context"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
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
