package testreport

import (
	"slices"
	"strings"
	"testing"
)

// TestRustcBuildErrorsLocated: a rustc error is recorded with the location
// rustc prints on the line after it, as Go's and gcc's errors carry theirs
// (recorded cargo test runs on a real crate, testdata/README).
func TestRustcBuildErrorsLocated(t *testing.T) {
	for _, tt := range []struct {
		log  string
		want []string
	}{
		{"testdata/cargo-test-compile-error-lib.log", []string{
			"src/lib.rs:485:29: error[E0308]: mismatched types",
			"error: could not compile `semver` (lib test) due to 1 previous error; 26 warnings emitted",
			"error: could not compile `semver` (lib) due to 1 previous error; 26 warnings emitted"}},
		{"testdata/cargo-test-compile-error-test.log", []string{
			"tests/test_version_req.rs:47:29: error[E0308]: mismatched types",
			"error: could not compile `semver` (test \"test_version_req\") due to 1 previous error; 15 warnings emitted"}},
	} {
		rep := parseFile(t, FormatCargo, tt.log)
		if !slices.Equal(rep.BuildErrors, tt.want) {
			t.Errorf("%s: build errors\n%q\nwant\n%q", tt.log, rep.BuildErrors, tt.want)
		}
		if rep.Status != Failed || len(rep.Cases) != 0 {
			t.Errorf("%s: %s with %d cases, want failed with none", tt.log, rep.Status, len(rep.Cases))
		}
	}
	// Errors without a code are the compiler's too; cargo's own are not.
	rep, err := Parse(FormatCargo, strings.NewReader("error: expected `;`, found `}`\n --> src/lib.rs:3:14\n  |\n"+
		"error: could not compile `rs` (lib) due to 1 previous error\nerror: test failed, to rerun pass `--lib`\n"))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"src/lib.rs:3:14: error: expected `;`, found `}`", "error: could not compile `rs` (lib) due to 1 previous error"}; !slices.Equal(rep.BuildErrors, want) {
		t.Errorf("build errors %q, want %q", rep.BuildErrors, want)
	}
}
