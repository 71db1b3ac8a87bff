package realworld

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/testutil"
)

// ownCoverage is a toolchain's own coverage commands for a corpus project:
// the same build and test steps triage's coverage run takes (their commands
// as its answer lists them), then the toolchain's own report of the data.
type ownCoverage func(b *testing.B, dir string, steps []planStep)

// planStep is a step of triage's answer: the command, as a shell would
// take it, and where it ran.
type planStep struct {
	Command string `json:"command"`
	Dir     string `json:"dir"`
	Ran     bool   `json:"ran"`
}

var coverBenchCases = []struct {
	Project string
	own     ownCoverage
}{
	{"cjson", ownGcov},
	{"zlib", ownGcov},
	{"semver", ownCargoCoverage},
}

// BenchmarkCorpusCoverage alternates a `test` coverage run of a corpus
// project per toolchain (CTest, make, cargo) through `triage call` with the
// toolchain's own coverage commands in the same copy, both warm: what
// triage adds to a coverage run (target: ≤ 5% more wall time).
func BenchmarkCorpusCoverage(b *testing.B) {
	for _, c := range coverBenchCases {
		b.Run(c.Project, func(b *testing.B) {
			p := projects[c.Project]
			src := filepath.Join(corpusDir(), p.Dir)
			if _, err := os.Stat(src); err != nil {
				missing(b, fmt.Sprintf("corpus project %s not fetched (scripts/corpus.sh): %v", c.Project, err))
			}
			for _, tool := range p.Tools {
				needTool(b, tool)
			}
			dir := copyProject(b, src)
			prepare(b, p, dir, nil)
			store := filepath.Join(b.TempDir(), "store")
			steps := coverStepsOf(b, p, dir, store) // warms triage's build
			c.own(b, dir, steps)                    // and the toolchain's
			var triage, own []time.Duration
			for b.Loop() {
				start := time.Now()
				coverStepsOf(b, p, dir, store)
				triage = append(triage, time.Since(start))
				start = time.Now()
				c.own(b, dir, steps)
				own = append(own, time.Since(start))
			}
			mt, mo := testutil.Median(triage), testutil.Median(own)
			b.ReportMetric(float64(mt.Microseconds())/1000, "triage-ms")
			b.ReportMetric(float64(mo.Microseconds())/1000, "own-ms")
			b.ReportMetric(float64(mt-mo)*100/float64(mo), "overhead-%")
		})
	}
}

// coverStepsOf runs triage's coverage run of the project and returns the
// steps it ran; the run must have coverage.
func coverStepsOf(b *testing.B, p Project, dir, store string) []planStep {
	_, _, r := coverageRun(b, p, dir, store, nil)
	var out struct {
		Steps []planStep `json:"steps"`
	}
	if err := json.Unmarshal(r.Output, &out); err != nil || len(out.Steps) == 0 {
		b.Fatalf("no steps in the answer: %v\n%s", err, r.Text)
	}
	return out.Steps
}

// ownGcov runs triage's steps' commands as a shell would (the same
// compiler flags, build directory and test command) after removing the
// counts of the run before (gcc adds to the counts it finds), then gcov's
// JSON report of every data file.
func ownGcov(b *testing.B, dir string, steps []planStep) {
	removeFiles(b, dir, ".gcda")
	for _, s := range steps {
		if s.Ran {
			toolOutput(b, s.Dir, nil, "sh", "-c", s.Command)
		}
	}
	data := filesUnder(b, dir, ".gcda")
	if len(data) == 0 {
		b.Fatalf("the test steps wrote no gcov data in %s", dir)
	}
	gcov := exec.Command("gcov", append([]string{"--json-format", "--stdout"}, data...)...)
	gcov.Dir = dir
	drain(b, gcov)
}

// ownCargoCoverage is the coverage run of the Rust toolchain's own
// documentation: cargo test with -C instrument-coverage and a profile per
// program, the test programs' list, llvm-profdata merge, llvm-cov export.
// Its target directory is its own, as triage's is.
func ownCargoCoverage(b *testing.B, dir string, _ []planStep) {
	profiles := filepath.Join(dir, "target", "own-profiles")
	if err := os.RemoveAll(profiles); err != nil {
		b.Fatal(err)
	}
	env := []string{"RUSTFLAGS=-C instrument-coverage", "CARGO_TARGET_DIR=" + filepath.Join(dir, "target", "own-coverage"),
		"LLVM_PROFILE_FILE=" + filepath.Join(profiles, "%p-%m.profraw")}
	toolOutput(b, dir, env, "cargo", "test", "--no-fail-fast")
	exes := cargoTestPrograms(b, dir, env)
	major := rustcLLVMMajor(b, dir)
	merged := filepath.Join(profiles, "merged.profdata")
	toolOutput(b, dir, nil, append([]string{"llvm-profdata-" + major, "merge", "-sparse", "-o", merged}, filesUnder(b, profiles, ".profraw")...)...)
	argv := []string{"llvm-cov-" + major, "export", "-format=lcov", "-instr-profile=" + merged, exes[0]}
	for _, e := range exes[1:] {
		argv = append(argv, "-object="+e)
	}
	export := exec.Command(argv[0], argv[1:]...)
	export.Dir = dir
	drain(b, export)
}

// drain runs cmd and reads its standard output to the end, as a reader of
// the report would; a failure fails the benchmark.
func drain(b *testing.B, cmd *exec.Cmd) {
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		b.Fatal(err)
	}
	n, _ := io.Copy(io.Discard, out)
	if err := cmd.Wait(); err != nil || n == 0 {
		b.Fatalf("%s: %v (%d bytes)\n%s", strings.Join(cmd.Args[:2], " "), err, n, clip(stderr.String(), 2000))
	}
}

// filesUnder lists the files under dir whose names end in suffix.
func filesUnder(t testing.TB, dir, suffix string) []string {
	t.Helper()
	var found []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, suffix) {
			found = append(found, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// removeFiles removes the files under dir whose names end in suffix.
func removeFiles(b *testing.B, dir, suffix string) {
	for _, f := range filesUnder(b, dir, suffix) {
		if err := os.Remove(f); err != nil {
			b.Fatal(err)
		}
	}
}
