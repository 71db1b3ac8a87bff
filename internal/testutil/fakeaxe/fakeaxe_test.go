package fakeaxe_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

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
	got, err := fakeaxe.Schema(fakeaxe.DescribeUI())
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != 270 {
		t.Fatalf("recorded schema has %d entries, want the 270 recorded", len(want))
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
