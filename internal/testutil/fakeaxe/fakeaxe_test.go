package fakeaxe_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/testutil/fakeaxe"
)

// TestDescribeUIHasTheRecordedSchema keeps the fake's describe-ui answer
// to the recorded format: exactly the paths and types of a real run.
func TestDescribeUIHasTheRecordedSchema(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(fakeaxe.Testdata(), "hierarchy-schema-types.json"))
	if err != nil {
		t.Fatal(err)
	}
	var recorded []fakeaxe.PathType
	if err := json.Unmarshal(raw, &recorded); err != nil {
		t.Fatal(err)
	}
	want := map[fakeaxe.PathType]bool{}
	for _, p := range recorded {
		want[p] = true
	}
	if len(want) != 270 {
		t.Fatalf("recorded schema has %d entries, want the 270 recorded", len(want))
	}
	for _, doc := range [][]byte{fakeaxe.DescribeUI(), fakeaxe.Screen(3)} {
		checkSchema(t, doc, want)
	}
}

func checkSchema(t *testing.T, doc []byte, want map[fakeaxe.PathType]bool) {
	got, err := fakeaxe.Schema(doc)
	if err != nil {
		t.Fatal(err)
	}
	for p := range want {
		if !got[p] {
			t.Errorf("missing %s %s", p.Path, p.Type)
		}
	}
	for p := range got {
		if !want[p] {
			t.Errorf("not recorded: %s %s", p.Path, p.Type)
		}
	}
}

// TestHelpIsReplayed: the fake answers --help with the recorded text.
func TestHelpIsReplayed(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	fakeaxe.Install(t)
	var out, errOut bytes.Buffer
	res, err := spawn.Run(context.Background(), spawn.Spec{Argv: []string{"axe", "tap", "--help"}, Stdout: &out, Stderr: &errOut})
	if err != nil || !res.Success() {
		t.Fatalf("axe tap --help: %v %v: %s", res, err, errOut.String())
	}
	if want := fakeaxe.Recorded(t, "help-tap", "stdout.txt"); out.String() != want || !strings.HasPrefix(want, "OVERVIEW: Tap a point") {
		t.Fatalf("stdout:\n%s\nwant the recording:\n%s", out.String(), want)
	}
}
