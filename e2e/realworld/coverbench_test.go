package realworld

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

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
	{"uuid", ownGoCoverage},
	{"cjson", ownGcov},
	{"zlib", ownGcov},
	{"semver", ownCargoCoverage},
}

// BenchmarkCorpusCoverage alternates a `test` coverage run of a corpus
// project per toolchain (go, CTest, make, cargo) in one `triage serve`
// session, as an agent makes it, with the toolchain's own coverage
// commands in the same copy, both warm: what triage adds to a coverage run
// (target: ≤ 5% more wall time). The session's time is the call's, the
// client's decoding of the answer included; reading the steps from it is
// not. cli-ms is the same run through `triage call`, a process of its own
// per run (its start and the store's open included), for comparison; it
// keeps its own store, so that the session's store is not written by
// another process between the session's calls.
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
			store, cliStore := filepath.Join(b.TempDir(), "store"), filepath.Join(b.TempDir(), "cli-store")
			s := startSession(b, store)
			steps := coverStepsIn(b, s.cover(b, p, dir)) // warms triage's build
			c.own(b, dir, steps)                         // and the toolchain's
			var triage, own, cli []time.Duration
			callTriage := func() {
				var res *mcp.CallToolResult
				timed(&triage, func() { res = s.cover(b, p, dir) })
				coverStepsIn(b, res) // checked outside the time: the answer as the client decoded it
			}
			runOwn := func() { timed(&own, func() { c.own(b, dir, steps) }) }
			// The call and the toolchain's own run take turns to go first
			// (ABBA), so that what one leaves the next (the caches, the
			// server's collection idleDelay after its answer) falls on both
			// alike; measured without it, the second of two like go
			// commands could take 16 ms longer. The server's CPU counts
			// over the whole loop: its idle work is the call's cost too.
			cpu0 := s.cpu()
			for i := 0; b.Loop(); i++ {
				if i%2 == 0 {
					callTriage()
					runOwn()
				} else {
					runOwn()
					callTriage()
				}
				timed(&cli, func() { coverStepsOf(b, p, dir, cliStore) })
			}
			cpu := s.cpu() - cpu0
			mt, mo := testutil.Median(triage), testutil.Median(own)
			b.ReportMetric(float64(mt.Microseconds())/1000, "triage-ms")
			b.ReportMetric(float64(mo.Microseconds())/1000, "own-ms")
			b.ReportMetric(pairedOverhead(triage, own), "overhead-%")
			b.ReportMetric(float64(testutil.Median(cli).Microseconds())/1000, "cli-ms")
			if cpu > 0 {
				b.ReportMetric(float64(cpu.Microseconds())/1000/float64(len(triage)), "triage-cpu-ms")
			}
		})
	}
}

// pairedOverhead is the median, over the loop's iterations, of how much
// longer the call took than the toolchain's own run beside it (%). The
// two of an iteration ran one after the other; the machine's speed drifts
// within a loop by more than the overhead measured, which a difference of
// the two series' medians takes in whole: five loops of 30 on uuid, one
// binary, gave 2.6-10.3% that way, and 4.4-6.5% paired.
func pairedOverhead(triage, own []time.Duration) float64 {
	pct := make([]float64, len(own))
	for i := range own {
		pct[i] = float64(triage[i]-own[i]) * 100 / float64(own[i])
	}
	slices.Sort(pct)
	return pct[len(pct)/2]
}

// timed runs f and adds its wall time to into.
func timed(into *[]time.Duration, f func()) {
	start := time.Now()
	f()
	*into = append(*into, time.Since(start))
}

// benchSession is a `triage serve` session over stdio.
type benchSession struct {
	cs  *mcp.ClientSession
	pid int
}

// cpu is the CPU time the server has used itself (its children's not
// counted), summed over its threads' scheduler statistics (nanoseconds):
// what triage's own work costs, which a loaded machine's wall times hide.
// Zero where /proc is not.
func (s *benchSession) cpu() time.Duration {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", s.pid))
	var sum time.Duration
	for _, t := range tasks {
		stat, err := os.ReadFile(t)
		if err != nil {
			continue // a thread that ended since the listing
		}
		f := strings.Fields(string(stat))
		if len(f) > 0 {
			ns, _ := strconv.ParseInt(f[0], 10, 64)
			sum += time.Duration(ns)
		}
	}
	return sum
}

// startSession starts `triage serve` on store; the benchmark's end closes
// it.
func startSession(b *testing.B, store string) *benchSession {
	cmd := exec.Command(triageBin, "serve", "--store", store)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "coverbench"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatalf("triage serve: %v", err)
	}
	b.Cleanup(func() { cs.Close() })
	return &benchSession{cs: cs, pid: cmd.Process.Pid}
}

// cover runs triage's coverage run of the project in the session: the
// call as an agent makes it, its answer decoded by the MCP client.
func (s *benchSession) cover(b *testing.B, p Project, dir string) *mcp.CallToolResult {
	args := map[string]any{"project_dir": dir, "toolchain": p.Toolchain, "coverage": "."}
	if len(p.Targets) > 0 {
		args["targets"] = p.Targets
	}
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: "test", Arguments: args})
	if err != nil {
		b.Fatalf("test: %v", err)
	}
	return res
}

// coverStepsIn returns the steps a coverage run's answer lists; the run
// must have coverage.
func coverStepsIn(b *testing.B, res *mcp.CallToolResult) []planStep {
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		b.Fatal(err)
	}
	var out struct {
		Steps    []planStep   `json:"steps"`
		Coverage wireCoverage `json:"coverage"`
	}
	if err := json.Unmarshal(raw, &out); err != nil || len(out.Steps) == 0 || out.Coverage.Tool == "" {
		b.Fatalf("no steps or no coverage in the answer (%v, error %q):\n%s", err, out.Coverage.Error, clip(string(raw), 2000))
	}
	return out.Steps
}

// coverStepsOf runs triage's coverage run of the project through `triage
// call` and returns the steps it ran; the run must have coverage.
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

// ownGoCoverage is go test's own coverage command with the flags triage's
// run passes (every package's statements, atomic counters), its profile
// in a directory of its own; triage's step adds -json, which it reads the
// tests from, and reads the profile itself.
func ownGoCoverage(b *testing.B, dir string, steps []planStep) {
	want := regexp.MustCompile(`^go test -json -covermode=atomic -coverpkg=\./\.\.\. -coverprofile=\S+ \./\.\.\.$`)
	if len(steps) != 1 || !want.MatchString(steps[0].Command) {
		b.Fatalf("triage's go coverage run is not the one compared with: %+v", steps)
	}
	profile := filepath.Join(dir, "own-cover.out")
	if err := os.Remove(profile); err != nil && !os.IsNotExist(err) {
		b.Fatal(err)
	}
	toolOutput(b, dir, nil, "go", "test", "-covermode=atomic", "-coverpkg=./...", "-coverprofile="+profile, "./...")
	if st, err := os.Stat(profile); err != nil || st.Size() == 0 {
		b.Fatalf("go test wrote no cover profile: %v", err)
	}
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
