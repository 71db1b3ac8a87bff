package coredump

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/fault"
)

// Show refuses what is not a crash artifact with a usage error that says
// what it is instead.
func TestShowRefusesWhatIsNoArtifact(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(text, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		dir:  "is a directory",
		text: "not a file triage recognises",
		exe:  "an executable (pass it as program",
	} {
		_, err := Show(context.Background(), path, "", "")
		if !fault.Is(err, fault.KindUsage) || !strings.Contains(err.Error(), want) {
			t.Errorf("Show(%s): %v; want a usage error containing %q", path, err, want)
		}
	}
}
