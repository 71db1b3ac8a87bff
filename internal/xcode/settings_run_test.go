package xcode

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/testutil/fakexcode"
)

// The scheme check lists schemes once per container state: repeated
// builds reuse the list, a scheme it lacks is looked for again, and a
// changed project is listed again.
func TestCheckSchemeCached(t *testing.T) {
	proj := filepath.Join(t.TempDir(), "App.xcodeproj")
	pbx := filepath.Join(proj, "project.pbxproj")
	if err := os.Mkdir(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pbx, []byte("// !$*UTF8*$!\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f := fakexcode.Install(t, fakexcode.Scenario{Rules: []fakexcode.Rule{{Tool: "xcodebuild", Match: []string{"-list", "-json"},
		Stdout: `{"project":{"name":"App","schemes":["App"],"targets":["App"]}}`}}})
	lists := func() int {
		n := 0
		for _, c := range f.Calls(t) {
			if c.Tool == "xcodebuild" && slices.Contains(c.Argv, "-list") {
				n++
			}
		}
		return n
	}
	ctx := context.Background()
	for range 3 {
		if err := CheckScheme(ctx, "", proj, "App"); err != nil {
			t.Fatal(err)
		}
	}
	if n := lists(); n != 1 {
		t.Errorf("three checks ran -list %d times, want 1", n)
	}
	var se *SchemeError
	if err := CheckScheme(ctx, "", proj, "Nope"); !errors.As(err, &se) {
		t.Fatalf("unknown scheme: %v", err)
	}
	if n := lists(); n != 2 {
		t.Errorf("a scheme missing from the cached list ran -list %d times in all, want 2", n)
	}
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(pbx, later, later); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := CheckScheme(ctx, "", proj, "App"); err != nil {
			t.Fatal(err)
		}
	}
	if n := lists(); n != 3 {
		t.Errorf("after the project changed, -list ran %d times in all, want 3", n)
	}
	// Listing always runs, and feeds the cache.
	if l, err := ListSchemes(ctx, "", proj); err != nil || !slices.Equal(l.Schemes, []string{"App"}) {
		t.Fatalf("ListSchemes: %+v, %v", l, err)
	}
	if err := CheckScheme(ctx, "", proj, "App"); err != nil {
		t.Fatal(err)
	}
	if n := lists(); n != 4 {
		t.Errorf("a listing and a check ran -list %d times in all, want 4", n)
	}
}
