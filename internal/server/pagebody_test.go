package server

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/config"
)

// TestDaemonPageRefusesBodies: the daemon's page listener answers a
// request with a body at once (400, connection closed), as the HTTP
// server's page does, rather than wait for a body it never reads.
func TestDaemonPageRefusesBodies(t *testing.T) {
	srv, _ := New(newServices(t, &config.Config{Store: config.Store{Path: filepath.Join(t.TempDir(), "t.db")}}), Options{})
	sock, _, _ := daemonOn(t, srv, UnixOptions{})
	url, err := askPage(t, sock, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base, _, _ := strings.Cut(url, "/ui/login?code=")
	resp := unfinishedPost(t, strings.TrimPrefix(base, "http://"), "/ui/api/runs", "")
	if resp.StatusCode != http.StatusBadRequest || !resp.Close {
		t.Errorf("answered %d (closing: %v), want 400 and the connection closed", resp.StatusCode, resp.Close)
	}
}
