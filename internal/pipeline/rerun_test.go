package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/logfilter"
	"github.com/triage-dev/triage/internal/testutil/hangers"
	"github.com/triage-dev/triage/internal/toolchain"
)

// exitingCrate has a test that ends its binary with exit(0) while other
// tests run on parallel threads: libtest prints names only of finished
// tests, so the output never names it.
const exitingCrate = `pub fn add(a: u64, b: u64) -> u64 { a + b }

#[cfg(test)]
mod tests {
    #[test]
    fn a_adds() { assert_eq!(super::add(1, 2), 3); }

    #[test]
    fn b_exits() {
        std::thread::sleep(std::time::Duration::from_millis(200));
        std::process::exit(0);
    }

    #[test]
    fn c_waits() { std::thread::sleep(std::time::Duration::from_secs(2)); }
}
`

// TestCargoBinaryEndedByATestIsRerunToNameIt: a real cargo run whose test
// binary a test ended unnamed; the rerun of its unreported tests one at a
// time names it, in the verdict and in the raw log read back by Analyze.
func TestCargoBinaryEndedByATestIsRerunToNameIt(t *testing.T) {
	hangers.Need(t, "cargo")
	dir := t.TempDir()
	for name, body := range map[string]string{
		"Cargo.toml": "[package]\nname = \"exiting\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n",
		"src/lib.rs": exitingCrate,
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	steps, err := toolchain.TestPlan(toolchain.Cargo, dir, toolchain.Options{Args: []string{"--", "--test-threads=3"}})
	if err != nil {
		t.Fatal(err)
	}
	var raw strings.Builder
	res, err := Run(context.Background(), Request{Kind: KindTest, Steps: steps, Level: logfilter.Standard, Raw: &raw})
	if err != nil {
		t.Fatal(err)
	}
	want := "TESTS FAILED: the run ended before tests::b_exits finished (unittests src/lib.rs: exit 0"
	if res.Status != Failed || !strings.HasPrefix(res.Line, want) {
		t.Fatalf("%s %q, want %q…\nraw log:\n%s", res.Status, res.Line, want, tail(raw.String()))
	}
	if !strings.Contains(raw.String(), "--- rerun of unittests src/lib.rs") {
		t.Errorf("the rerun is not in the raw log:\n%s", tail(raw.String()))
	}
	again, err := Analyze(strings.NewReader(raw.String()), AnalyzeOptions{Level: logfilter.Standard})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(again.Line, want) {
		t.Errorf("the log read back: %q, want %q…", again.Line, want)
	}
}
