package services

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/config"
	"github.com/triage-dev/triage/internal/store"
)

// TestStoreTighteningIsLogged: a store an older triage left readable by
// others is made private when opened, and the log says so, naming it.
func TestStoreTighteningIsLogged(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "triage")
	db := filepath.Join(dir, "triage.db")
	st, err := store.Open(context.Background(), db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	if err := os.Chmod(db, 0o644); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	svc, err := New(&config.Config{Store: config.Store{Path: db}}, slog.New(slog.NewTextHandler(&log, nil)), "test")
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	if _, err := svc.Store(context.Background()); err != nil {
		t.Fatal(err)
	}
	if l := log.String(); !strings.Contains(l, "made the output store private") || !strings.Contains(l, db) {
		t.Errorf("the log does not say the store was made private:\n%s", l)
	}
}
