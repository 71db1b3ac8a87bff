package realworld

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// covCase is one corpus project's coverage run, judged against the
// toolchain's own report of the same data.
type covCase struct {
	Name    string // the subtest's, when not the project's
	Project string
	File    string // the file whose uncovered ranges are compared
	// Env is the run's env option (CC=clang-22), and Tools what it needs
	// beyond the project's.
	Env   map[string]string
	Tools []string
	// reference reads the toolchain's own figures for the run triage made
	// in dir (or, for Go, a run of go test with the same flags in a second
	// copy).
	reference func(t *testing.T, p Project, dir string) covRef
}

// covRef is what a toolchain's report says: project-relative file →
// covered and counted lines, and each file's counted lines (line → run).
type covRef struct {
	Files  map[string][2]int
	Listed map[string]map[int]bool
	// Statements is Go's covered and counted statements, and Percent the
	// total of go tool cover -func as it prints it.
	Statements [2]int
	Percent    string
}

var covCases = []covCase{
	{Project: "uuid", File: "uuid.go", reference: goReference},
	{Project: "cjson", File: "cJSON.c", reference: gcovReference},
	{Project: "zlib", File: "deflate.c", reference: gcovReference},
	{Project: "semver", File: "src/parse.rs", reference: llvmCovReference},
	// The rest of the corpus: projects the issue does not name, each against
	// its toolchain's own report too.
	{Project: "toml", File: "decode.go", reference: goReference},
	{Project: "xsync", File: "errgroup/errgroup.go", reference: goReference},
	{Project: "xxhash", File: "xxhash.go", reference: goReference},
	{Project: "libyaml", File: "src/scanner.c", reference: gcovReference},
	{Project: "strsim", File: "src/lib.rs", reference: llvmCovReference},
	// The same C project under CTest built by clang: source-based coverage
	// read by llvm-cov, against llvm-cov report of the same build's tests.
	{Name: "cjson-clang", Project: "cjson", File: "cJSON.c", Env: map[string]string{"CC": testClang},
		Tools: []string{testClang, testClangProfdata, testClangCov}, reference: clangReference},
}

// wireFile is a file of triage's coverage answer.
type wireFile struct {
	Path              string   `json:"path"`
	Lines             int      `json:"lines"`
	Covered           int      `json:"covered"`
	Statements        int      `json:"statements"`
	CoveredStatements int      `json:"covered_statements"`
	Uncovered         [][2]int `json:"uncovered"`
}

// wireCoverage is triage's coverage answer (test, output_get).
type wireCoverage struct {
	Tool              string     `json:"tool"`
	Lines             int        `json:"lines"`
	Covered           int        `json:"covered"`
	Statements        int        `json:"statements"`
	CoveredStatements int        `json:"covered_statements"`
	StatementPercent  float64    `json:"statement_percent"`
	FilesMatched      int        `json:"files_matched"`
	Files             []wireFile `json:"files"`
	File              *wireFile  `json:"file"`
	Apart             map[string]int
	Error             string `json:"error"`
	FailedPath        string `json:"failed_path"`
}

// coverageRun runs `triage call test` with coverage of every file in the
// copy and returns its coverage answer and output id.
func coverageRun(t testing.TB, p Project, dir, store string, opts map[string]any) (wireCoverage, string, toolResult) {
	t.Helper()
	cov, id, r := coverageAnswer(t, p, dir, store, opts)
	if cov.Tool == "" {
		t.Fatalf("no coverage in the answer (error %q):\n%s", cov.Error, r.Text)
	}
	return cov, id, r
}

// coverageAnswer is coverageRun's call, its answer's coverage whatever it
// holds.
func coverageAnswer(t testing.TB, p Project, dir, store string, opts map[string]any) (wireCoverage, string, toolResult) {
	t.Helper()
	args := map[string]any{"project_dir": dir, "toolchain": p.Toolchain, "coverage": "."}
	if len(p.Targets) > 0 {
		args["targets"] = p.Targets
	}
	for k, v := range opts {
		args[k] = v
	}
	r := callTool(t, store, "test", args)
	var out struct {
		OutputID string       `json:"output_id"`
		Coverage wireCoverage `json:"coverage"`
	}
	if err := json.Unmarshal(r.Output, &out); err != nil || out.OutputID == "" {
		t.Fatalf("test answer: %v\n%s", err, r.Text)
	}
	return out.Coverage, out.OutputID, r
}

// fileCoverage asks output_get for one file of a stored coverage run.
func fileCoverage(t *testing.T, store, id, file string) wireFile {
	t.Helper()
	r := callTool(t, store, "output_get", map[string]any{"output_id": id, "coverage": file})
	var out struct {
		Coverage wireCoverage `json:"coverage"`
	}
	if err := json.Unmarshal(r.Output, &out); err != nil || out.Coverage.File == nil {
		t.Fatalf("output_get coverage %s: %v\n%s", file, err, r.Text)
	}
	return *out.Coverage.File
}

// TestCoverageMatchesToolchain runs a coverage run on one project per
// toolchain of the corpus and compares its figures with the toolchain's
// own report: the total and each listed file's covered and counted lines,
// and one file's uncovered ranges as output_get gives them.
func TestCoverageMatchesToolchain(t *testing.T) {
	for _, c := range covCases {
		t.Run(cmp.Or(c.Name, c.Project), func(t *testing.T) {
			p := projects[c.Project]
			src := filepath.Join(corpusDir(), p.Dir)
			if _, err := os.Stat(src); err != nil {
				missing(t, fmt.Sprintf("corpus project %s not fetched (scripts/corpus.sh): %v", c.Project, err))
			}
			for _, tool := range append(slices.Clone(p.Tools), c.Tools...) {
				needTool(t, tool)
			}
			dir := copyProject(t, src)
			prepare(t, p, dir, c.Env)
			store := filepath.Join(t.TempDir(), "store")
			var opts map[string]any
			if c.Env != nil {
				opts = map[string]any{"env": c.Env}
			}
			got, id, r := coverageRun(t, p, dir, store, opts)
			// zlib's tests are programs: make test succeeds, no test is named.
			if v := firstLine(r.Text); !strings.HasPrefix(v, "TESTS PASSED") && !strings.HasPrefix(v, "TEST COMMAND SUCCEEDED") {
				t.Errorf("the pristine project's tests did not pass:\n%s", clip(r.Text, 2000))
			}
			noFaultDiagnostics(t, "test", r)
			ref := c.reference(t, p, dir)
			compareCoverage(t, got, ref)
			file := fileCoverage(t, store, id, c.File)
			w, ok := ref.Files[c.File]
			switch {
			case !ok:
				t.Errorf("%s: the toolchain's report does not name it", c.File)
			case file.Covered != w[0] || file.Lines != w[1]:
				t.Errorf("output_get %s: %d of %d lines, the toolchain says %d of %d", c.File, file.Covered, file.Lines, w[0], w[1])
			}
			// triage folds uncovered lines across the lines between them
			// that hold no code; the toolchain's listing names each line.
			if got, want := countedRanges(ref.Listed[c.File], file.Uncovered); !slices.Equal(got, want) {
				t.Errorf("output_get %s: uncovered %v;\nof those, the lines the toolchain counts: %v;\nthe toolchain's uncovered lines: %v", c.File, file.Uncovered, got, want)
			}
			sourceMatchesListing(t, store, id, c.File, ref.Listed[c.File])
			t.Logf("%s: %d of %d lines in %d files; %s: %d of %d, uncovered %v", c.Project, got.Covered, got.Lines, len(ref.Files), c.File, file.Covered, file.Lines, file.Uncovered)
		})
	}
}

// sourceMatchesListing reads a file's source as the run marked it
// (output_get's source, page by page) and checks each line's mark against
// the toolchain's listing of the same run: + for a line it counts as run,
// - for one it counts as not run, blank for one it does not count.
func sourceMatchesListing(t *testing.T, store, id, file string, listed map[int]bool) {
	t.Helper()
	wrong := 0
	for i, l := range sourcePages(t, store, id, file) {
		n := i + 1
		want := byte(' ')
		if ran, ok := listed[n]; ok && ran {
			want = '+'
		} else if ok {
			want = '-'
		}
		if l[6] != want {
			if wrong++; wrong <= 5 {
				t.Errorf("%s line %d marked %q, the toolchain's listing says %q: %q", file, n, l[6], want, l)
			}
		}
	}
	if wrong > 5 {
		t.Errorf("%s: %d lines marked otherwise than the toolchain's listing", file, wrong)
	}
}

// sourcePages reads a file's whole source as a run marked it, following
// output_get's pages (each within the answer's budget) to its last line.
func sourcePages(t *testing.T, store, id, file string) []string {
	t.Helper()
	var lines []string
	for total := 1; len(lines) < total; {
		r := callTool(t, store, "output_get", map[string]any{"output_id": id, "coverage": file, "source": true, "offset": len(lines), "limit": 1000})
		var page struct {
			Lines      []string `json:"lines"`
			TotalLines int      `json:"total_lines"`
		}
		if err := json.Unmarshal(r.Output, &page); err != nil || len(page.Lines) == 0 {
			t.Fatalf("source of %s from line %d: %v\n%s", file, len(lines)+1, err, clip(r.Text, 2000))
		}
		lines, total = append(lines, page.Lines...), page.TotalLines
	}
	return lines
}

// compareCoverage compares triage's totals and listed files with the
// toolchain's figures for the project's own files.
func compareCoverage(t *testing.T, got wireCoverage, ref covRef) {
	t.Helper()
	var covered, lines int
	for _, w := range ref.Files {
		covered += w[0]
		lines += w[1]
	}
	if got.Covered != covered || got.Lines != lines || got.FilesMatched != len(ref.Files) {
		t.Errorf("totals: %d of %d lines in %d files (apart: %v); the toolchain's report of the project's files: %d of %d in %d files",
			got.Covered, got.Lines, got.FilesMatched, got.Apart, covered, lines, len(ref.Files))
	}
	for _, f := range got.Files {
		w, ok := ref.Files[f.Path]
		if !ok || f.Covered != w[0] || f.Lines != w[1] {
			t.Errorf("%s: %d of %d lines, the toolchain's report: %d of %d (named: %v)", f.Path, f.Covered, f.Lines, w[0], w[1], ok)
		}
	}
	listed := map[string]bool{}
	for _, f := range got.Files {
		listed[f.Path] = true
	}
	for path := range ref.Files {
		if !listed[path] && len(got.Files) == got.FilesMatched {
			t.Errorf("%s: in the toolchain's report, not among triage's files", path)
		}
	}
	if ref.Percent != "" {
		if pct := strconv.FormatFloat(got.StatementPercent, 'f', 1, 64); pct != ref.Percent || got.CoveredStatements != ref.Statements[0] || got.Statements != ref.Statements[1] {
			t.Errorf("statements: %s%% (%d of %d); go tool cover -func: %s%% (%d of %d in the profile)",
				pct, got.CoveredStatements, got.Statements, ref.Percent, ref.Statements[0], ref.Statements[1])
		}
	}
}

// rangesOf folds sorted uncovered line numbers into [from, to] ranges.
func rangesOf(lines []int) [][2]int {
	slices.Sort(lines)
	var rs [][2]int
	for _, l := range lines {
		if n := len(rs); n > 0 && rs[n-1][1] >= l-1 {
			rs[n-1][1] = max(rs[n-1][1], l)
			continue
		}
		rs = append(rs, [2]int{l, l})
	}
	return rs
}

// lineTally collects per-line counts of files, a line covered when any
// count on it is above zero.
type lineTally map[string]map[int]bool

func (lt lineTally) add(file string, line int, covered bool) {
	if lt[file] == nil {
		lt[file] = map[int]bool{}
	}
	lt[file][line] = lt[file][line] || covered
}

// into sets ref's line figures and listings from the tally.
func (lt lineTally) into(ref *covRef) {
	ref.Files, ref.Listed = map[string][2]int{}, lt
	for file, lines := range lt {
		var c [2]int
		for _, cov := range lines {
			c[1]++
			if cov {
				c[0]++
			}
		}
		ref.Files[file] = c
	}
}

// countedRanges returns triage's uncovered ranges cut down to the lines the
// toolchain counts, and the toolchain's own uncovered lines, both folded
// into ranges of consecutive lines.
func countedRanges(listed map[int]bool, uncovered [][2]int) (got, want [][2]int) {
	var g, w []int
	for _, r := range uncovered {
		for l := r[0]; l <= r[1]; l++ {
			if _, ok := listed[l]; ok {
				g = append(g, l)
			}
		}
	}
	for l, cov := range listed {
		if !cov {
			w = append(w, l)
		}
	}
	return rangesOf(g), rangesOf(w)
}

// TestCoverageFailedPath injects a failure into a corpus project per
// toolchain that reruns one test alone (the CI cells semver/Rust panic and
// cjson/failing assertion, and strsim's panic beside them) and checks that
// the failed test's path, the lines it ran rerun alone with coverage,
// holds the line of the failure, and that the path ends at that line. A
// test that crashed (semver's abort, uuid's panic) has no path to give:
// the answer says so (crashedPath).
func TestCoverageFailedPath(t *testing.T) {
	for _, name := range []string{"semver/Rust panic", "strsim/Rust panic", "cjson/failing assertion", "semver/process::abort", "uuid/Go panic"} {
		t.Run(name, func(t *testing.T) {
			i := slices.IndexFunc(cells, func(c Cell) bool { return c.Name() == name })
			if i < 0 {
				t.Fatalf("no cell %s", name)
			}
			failedPathOf(t, cells[i])
		})
	}
}

// crashedPath checks the path of a test whose program crashed, which
// writes no coverage data: unknown, said so, never "none of the lines";
// a run whose only test program crashed has no coverage, and says why.
func crashedPath(t *testing.T, c Cell, got wireCoverage, r toolResult) {
	if !strings.HasPrefix(r.Text, "CRASHED") || strings.Contains(r.Text, "none of the project's own lines") {
		t.Fatalf("want a crashed run, its path not said to be empty:\n%s", clip(r.Text, 3000))
	}
	switch {
	case got.Tool == "":
		if !strings.Contains(got.Error, "crashed") || strings.Contains(r.Text, "100.0%") {
			t.Errorf("no coverage, error %q: want the crash named as why\n%s", got.Error, clip(r.Text, 3000))
		}
	case !strings.HasPrefix(got.FailedPath, "none: ") || !strings.Contains(got.FailedPath, c.Test+" crashed"):
		t.Errorf("failed_path %q: want it unknown, the test crashed\n%s", got.FailedPath, clip(r.Text, 3000))
	}
}

func failedPathOf(t *testing.T, c Cell) {
	p := projects[c.Project]
	src := filepath.Join(corpusDir(), p.Dir)
	if _, err := os.Stat(src); err != nil {
		missing(t, fmt.Sprintf("corpus project %s not fetched (scripts/corpus.sh): %v", c.Project, err))
	}
	for _, tool := range p.Tools {
		needTool(t, tool)
	}
	dir := copyProject(t, src)
	loc := applyEdits(t, dir, c.Edits)
	prepare(t, p, dir, nil)
	got, _, r := coverageAnswer(t, p, dir, filepath.Join(t.TempDir(), "store"), nil)
	if c.Class == Crashed {
		crashedPath(t, c, got, r)
		return
	}
	if got.Tool == "" {
		t.Fatalf("no coverage in the answer (error %q):\n%s", got.Error, r.Text)
	}
	if !strings.HasPrefix(r.Text, "TESTS FAILED") || got.FailedPath == "" {
		t.Fatalf("want a failed run with the failed test's path:\n%s", clip(r.Text, 3000))
	}
	// The first failed test is rerun: the fault may fail others than the
	// cell's (strsim's fails five), each one the answer lists.
	test, _, _ := strings.Cut(strings.TrimPrefix(got.FailedPath, "the failing test "), " ran: ")
	if _, name, _ := strings.Cut(test, "::"); !strings.Contains(r.Text, cmp.Or(name, test)) || !strings.Contains(r.Text, "failed") {
		t.Errorf("failed_path %q: its test %q is not among the run's failed tests:\n%s", got.FailedPath, test, clip(r.Text, 2000))
	}
	if !strings.Contains(got.FailedPath, " ran: ") || !strings.Contains(got.FailedPath, " → failed at "+loc.String()) {
		t.Errorf("failed_path %q: want a test's path that failed at %s", got.FailedPath, loc)
	}
	ran := pathRanges(got.FailedPath, loc.File)
	if !slices.ContainsFunc(ran, func(r [2]int) bool { return r[0] <= loc.Line && loc.Line <= r[1] }) {
		t.Errorf("failed_path %q: %s's ranges %v leave out the failure line %d", got.FailedPath, loc.File, ran, loc.Line)
	}
	t.Logf("failed_path: %s", got.FailedPath)
}

// pathRanges reads one file's line ranges from a failed_path text:
// "the failing test T ran: FILE: FUNC 3-5,9, FUNC 12; FILE: … → failed at F:L".
func pathRanges(text, file string) [][2]int {
	_, body, _ := strings.Cut(text, " ran: ")
	body, _, _ = strings.Cut(body, " → failed at ")
	var rs [][2]int
	for _, section := range strings.Split(body, "; ") {
		rest, ok := strings.CutPrefix(section, file+": ")
		if !ok {
			continue
		}
		for _, tok := range strings.FieldsFunc(rest, func(r rune) bool { return r == ' ' || r == ',' }) {
			from, to, span := strings.Cut(tok, "-")
			a, err1 := strconv.Atoi(from)
			b, err2 := strconv.Atoi(to)
			if !span {
				b, err2 = a, err1
			}
			if err1 == nil && err2 == nil {
				rs = append(rs, [2]int{a, b})
			}
		}
	}
	return rs
}

// TestCoverageComparison runs xxhash's tests with coverage, adds a test of
// the functions no test calls, runs them again, and compares the runs: the
// lines gained are the new run's covered lines less the old's (the
// folded ranges' comments and blank lines not counted), none lost, and the
// ranges hold the functions the new test calls.
func TestCoverageComparison(t *testing.T) {
	p := projects["xxhash"]
	src := filepath.Join(corpusDir(), p.Dir)
	if _, err := os.Stat(src); err != nil {
		missing(t, fmt.Sprintf("corpus project xxhash not fetched (scripts/corpus.sh): %v", err))
	}
	needTool(t, "go")
	dir := copyProject(t, src)
	store := filepath.Join(t.TempDir(), "store")
	before, oldID, _ := coverageRun(t, p, dir, store, nil)
	test := "package xxhash\n\nimport \"testing\"\n\nfunc TestSizes(t *testing.T) {\n\td := New()\n\tif d.Size() != 8 || d.BlockSize() != 32 {\n\t\tt.Fatal(\"sizes\")\n\t}\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "sizes_test.go"), []byte(test), 0o644); err != nil {
		t.Fatal(err)
	}
	after, newID, _ := coverageRun(t, p, dir, store, nil)
	r := callTool(t, store, "output_get", map[string]any{"output_id": newID, "coverage": ".", "since": oldID})
	var out struct {
		Coverage struct {
			Change struct {
				Gained, Lost int
				Files        []struct {
					Path   string
					Gained [][2]int
				}
			} `json:"change"`
		} `json:"coverage"`
	}
	if err := json.Unmarshal(r.Output, &out); err != nil {
		t.Fatalf("%v\n%s", err, r.Text)
	}
	ch := out.Coverage.Change
	if ch.Gained != after.Covered-before.Covered || ch.Lost != 0 || len(ch.Files) != 1 || ch.Files[0].Path != "xxhash.go" {
		t.Fatalf("gained %d, lost %d in %+v; the runs covered %d then %d lines\n%s", ch.Gained, ch.Lost, ch.Files, before.Covered, after.Covered, r.Text)
	}
	source, err := os.ReadFile(filepath.Join(dir, "xxhash.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, fn := range []string{"func (d *Digest) Size() int", "func (d *Digest) BlockSize() int"} {
		i := strings.Index(string(source), fn)
		if i < 0 {
			t.Fatalf("xxhash.go has no %q", fn)
		}
		line := strings.Count(string(source[:i]), "\n") + 1
		if !slices.ContainsFunc(ch.Files[0].Gained, func(g [2]int) bool { return g[0] <= line && line <= g[1] }) {
			t.Errorf("%s (line %d) is not among the gained ranges %v", fn, line, ch.Files[0].Gained)
		}
	}
	t.Logf("%s", firstLine(r.Text))
	sourceMarks(t, store, newID, string(source))
}

// sourceMarks reads xxhash.go's source as the run marked it
// (output_get's source) and checks the marks against the file: Size's
// line ran, a top-level comment (outside every block Go counts) holds no
// code, and each line of the uncovered ranges that output_get gives is
// marked not run. Go counts a block's every line, its comments too.
func sourceMarks(t *testing.T, store, id, source string) {
	lines := sourcePages(t, store, id, "xxhash.go")
	if len(lines) != strings.Count(source, "\n") {
		t.Fatalf("source: %d lines, the file has %d", len(lines), strings.Count(source, "\n"))
	}
	mark := func(n int) byte { return lines[n-1][6] }
	src := strings.Split(source, "\n")
	for n, text := range src[:len(lines)] {
		code := strings.TrimSpace(text)
		switch {
		case strings.HasPrefix(code, "func (d *Digest) Size() int") && mark(n+1) != '+':
			t.Errorf("Size's line %d: %q", n+1, lines[n])
		case strings.HasPrefix(text, "//") && mark(n+1) != ' ':
			t.Errorf("line %d holds no code: %q", n+1, lines[n])
		}
	}
	for _, u := range fileCoverage(t, store, id, "xxhash.go").Uncovered {
		for n := u[0]; n <= u[1]; n++ {
			if mark(n) != '-' {
				t.Errorf("uncovered line %d: %q", n, lines[n-1])
			}
		}
	}
}
