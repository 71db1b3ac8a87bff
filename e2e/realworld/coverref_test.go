package realworld

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// needTool fails (CI) or skips when a command is not on PATH.
func needTool(t testing.TB, tool string) {
	t.Helper()
	if _, err := exec.LookPath(tool); err != nil {
		missing(t, fmt.Sprintf("%s not on PATH: %v", tool, err))
	}
}

// toolOutput runs argv in dir with extra environment and returns its
// standard output; a failure fails the test.
func toolOutput(t testing.TB, dir string, env []string, argv ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(argv, " "), err, clip(stderr.String(), 4000))
	}
	return out
}

var goFuncTotal = regexp.MustCompile(`total:\s+\(statements\)\s+([0-9.]+)%`)

// goReference runs go test with the flags of triage's coverage run in a
// second fresh copy, and reads go tool cover -func's total. The line
// figures come from the same profile: a line is covered when a block on it
// ran (go's own tools print no line counts).
func goReference(t *testing.T, p Project, _ string) covRef {
	dir := copyProject(t, filepath.Join(corpusDir(), p.Dir))
	profile := filepath.Join(t.TempDir(), "cover.out")
	targets := p.Targets
	if len(targets) == 0 {
		targets = []string{"./..."}
	}
	// The run's packages instrumented, as triage's run has them.
	cover := "-coverpkg=" + strings.Join(targets, ",")
	toolOutput(t, dir, nil, append([]string{"go", "test", "-covermode=atomic", cover, "-coverprofile=" + profile}, targets...)...)
	var ref covRef
	m := goFuncTotal.FindSubmatch(toolOutput(t, dir, nil, "go", "tool", "cover", "-func="+profile))
	if m == nil {
		t.Fatal("go tool cover -func printed no total")
	}
	ref.Percent = string(m[1])
	module := strings.TrimSpace(string(toolOutput(t, dir, nil, "go", "list", "-m")))
	data, err := os.ReadFile(profile)
	if err != nil {
		t.Fatal(err)
	}
	type block struct{ stmts, count int }
	blocks := map[string]*block{}
	var order []string
	for _, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "mode:") {
			continue
		}
		f := strings.Fields(line)
		stmts, _ := strconv.Atoi(f[1])
		count, _ := strconv.Atoi(f[2])
		if b, ok := blocks[f[0]]; ok { // one per test binary under -coverpkg
			b.count += count
			continue
		}
		blocks[f[0]] = &block{stmts, count}
		order = append(order, f[0])
	}
	lt := lineTally{}
	for _, pos := range order {
		b := blocks[pos]
		file, span, _ := strings.Cut(strings.TrimPrefix(pos, module+"/"), ":")
		var l0, c0, l1, c1 int
		if _, err := fmt.Sscanf(span, "%d.%d,%d.%d", &l0, &c0, &l1, &c1); err != nil {
			t.Fatalf("profile block %q: %v", pos, err)
		}
		for l := l0; l <= l1; l++ {
			lt.add(file, l, b.count > 0)
		}
		ref.Statements[1] += b.stmts
		if b.count > 0 {
			ref.Statements[0] += b.stmts
		}
	}
	lt.into(&ref)
	return ref
}

var gcovSummary = regexp.MustCompile(`File '([^']+)'\nLines executed:([0-9.]+)% of (\d+)`)

// gcovReference runs gcov over the data files triage's run left in dir
// (CMake: triage's build directory under .triage) and reads its summary
// (gcov -n) for each of the project's files, and its annotated listing
// (gcov -t) for the uncovered lines.
func gcovReference(t *testing.T, _ Project, dir string) covRef {
	data := filesUnder(t, dir, ".gcda")
	if len(data) == 0 {
		t.Fatalf("no gcov data files in %s", dir)
	}
	ref := covRef{Files: map[string][2]int{}, Listed: map[string]map[int]bool{}}
	groups := gcovCompileDirs(t, dir, data)
	for cwd, data := range groups {
		// gcov names a source as the compiler was given it: relative to the
		// directory it compiled in (automake compiles in each subdirectory),
		// or absolute (CMake).
		own := func(path string) (string, bool) {
			if !filepath.IsAbs(path) {
				path = filepath.Join(cwd, path)
			}
			rel, err := filepath.Rel(dir, path)
			if err != nil || strings.HasPrefix(rel, "..") || strings.HasPrefix(rel, ".triage") {
				return "", false
			}
			return filepath.ToSlash(rel), true
		}
		part := covRef{Files: map[string][2]int{}, Listed: map[string]map[int]bool{}}
		for _, m := range gcovSummary.FindAllStringSubmatch(string(toolOutput(t, cwd, nil, append([]string{"gcov", "-n"}, data...)...)), -1) {
			if rel, ok := own(m[1]); ok {
				pct, _ := strconv.ParseFloat(m[2], 64)
				n, _ := strconv.Atoi(m[3])
				part.Files[rel] = [2]int{int(math.Round(pct * float64(n) / 100)), n}
			}
		}
		readGcovListing(t, toolOutput(t, cwd, nil, append([]string{"gcov", "-t"}, data...)...), own, &part)
		mergeGcovRef(&ref, part)
	}
	return ref
}

// gcovCompileDirs groups data files by the directory their objects were
// compiled in, as gcov's JSON names it.
func gcovCompileDirs(t *testing.T, dir string, data []string) map[string][]string {
	out := toolOutput(t, dir, nil, append([]string{"gcov", "--json-format", "--stdout"}, data...)...)
	groups := map[string][]string{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for i := 0; dec.More(); i++ {
		var head struct {
			Cwd      string `json:"current_working_directory"`
			DataFile string `json:"data_file"`
		}
		if err := dec.Decode(&head); err != nil {
			t.Fatalf("gcov's JSON: %v", err)
		}
		if i >= len(data) || head.Cwd == "" {
			t.Fatalf("gcov's JSON object %d (%q) has no data file of ours or no directory", i, head.DataFile)
		}
		groups[head.Cwd] = append(groups[head.Cwd], data[i])
	}
	return groups
}

// mergeGcovRef adds one compile directory's figures to ref. A file more
// than one directory's objects hold is merged line by line, as one gcov
// run over all of them merges it (a line ran if it ran in any).
func mergeGcovRef(ref *covRef, part covRef) {
	for file, lines := range part.Listed {
		seen := ref.Listed[file]
		if seen == nil {
			ref.Listed[file], ref.Files[file] = lines, part.Files[file]
			continue
		}
		for n, ran := range lines {
			seen[n] = seen[n] || ran
		}
		covered := 0
		for _, ran := range seen {
			if ran {
				covered++
			}
		}
		ref.Files[file] = [2]int{covered, len(seen)}
	}
	for file, f := range part.Files {
		if _, ok := ref.Files[file]; !ok {
			ref.Files[file] = f // named in the summary, not listed
		}
	}
}

// readGcovListing reads gcov's annotated sources ("count:line:text", "-"
// for a line without code): the first listing of a line is the merged one,
// the function instances that follow it repeat lines.
func readGcovListing(t *testing.T, listing []byte, own func(string) (string, bool), ref *covRef) {
	t.Helper()
	var lines map[int]bool
	sc := bufio.NewScanner(strings.NewReader(string(listing)))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		count, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		num, text, _ := strings.Cut(rest, ":")
		n, err := strconv.Atoi(strings.TrimSpace(num))
		if err != nil {
			continue
		}
		if n == 0 {
			if src, ok := strings.CutPrefix(text, "Source:"); ok {
				lines = nil
				if file, ok := own(src); ok {
					lines = map[int]bool{}
					ref.Listed[file] = lines
				}
			}
			continue
		}
		c := strings.TrimSpace(count)
		if _, seen := lines[n]; lines == nil || seen || c == "-" {
			continue
		}
		lines[n] = c != "#####" && c != "====="
	}
}

// llvmCovReference reruns the test programs triage's cargo coverage run
// built (in its target directory, which cargo lists without rebuilding)
// with a profile of its own, merges it with llvm-profdata and reads
// llvm-cov report's line figures and llvm-cov show's line counts, with the
// LLVM tools of rustc's own LLVM.
func llvmCovReference(t *testing.T, _ Project, dir string) covRef {
	env := []string{"RUSTFLAGS=-C instrument-coverage", "CARGO_TARGET_DIR=" + filepath.Join(dir, "target", "triage-coverage")}
	exes := cargoTestPrograms(t, dir, env)
	profiles := t.TempDir()
	for _, exe := range exes {
		toolOutput(t, dir, []string{"LLVM_PROFILE_FILE=" + filepath.Join(profiles, "%p-%m.profraw")}, exe)
	}
	raws, _ := filepath.Glob(filepath.Join(profiles, "*.profraw"))
	major := rustcLLVMMajor(t, dir)
	profdata, cov := "llvm-profdata-"+major, "llvm-cov-"+major
	needTool(t, profdata)
	needTool(t, cov)
	merged := filepath.Join(profiles, "merged.profdata")
	toolOutput(t, dir, nil, append([]string{profdata, "merge", "-sparse", "-o", merged}, raws...)...)
	objects := []string{exes[0]}
	for _, e := range exes[1:] {
		objects = append(objects, "-object="+e)
	}
	ref := covRef{Files: map[string][2]int{}, Listed: map[string]map[int]bool{}}
	report := toolOutput(t, dir, nil, append([]string{cov, "report", "-instr-profile=" + merged}, objects...)...)
	// Filename, regions, missed, cover; functions, missed, executed; lines, missed, cover; …
	for _, line := range strings.Split(string(report), "\n") {
		f := strings.Fields(line)
		if len(f) < 10 || !strings.HasSuffix(f[0], ".rs") {
			continue
		}
		rel, err := filepath.Rel(dir, f[0])
		if !filepath.IsAbs(f[0]) {
			rel, err = f[0], nil
		}
		if err != nil || strings.HasPrefix(rel, "..") {
			continue // the registry's crates and the standard library
		}
		lines, _ := strconv.Atoi(f[7])
		missed, _ := strconv.Atoi(f[8])
		ref.Files[filepath.ToSlash(rel)] = [2]int{lines - missed, lines}
	}
	for file := range ref.Files {
		show := toolOutput(t, dir, nil, append([]string{cov, "show", "-instr-profile=" + merged, "-sources", filepath.Join(dir, file)}, objects...)...)
		ref.Listed[file] = llvmListing(show)
	}
	return ref
}

// llvmShowLine is a line of llvm-cov show's text: "  12|      0|  text"
// (the count empty for a line with no code).
var llvmShowLine = regexp.MustCompile(`^\s*(\d+)\|\s*([0-9.]+[kMGTPEZY]?)?\|`)

// llvmListing reads the lines llvm-cov show counts: line → run. The
// first listing of a line is the file's; instantiations follow, indented.
func llvmListing(show []byte) map[int]bool {
	lines := map[int]bool{}
	for _, line := range strings.Split(string(show), "\n") {
		m := llvmShowLine.FindStringSubmatch(line)
		if m == nil || m[2] == "" {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		if _, seen := lines[n]; !seen {
			lines[n] = m[2] != "0"
		}
	}
	return lines
}

// cargoTestPrograms lists the test programs cargo builds in dir with env
// (cargo test --no-run, which rebuilds nothing that is built); none fails
// the test.
func cargoTestPrograms(t testing.TB, dir string, env []string) []string {
	t.Helper()
	var exes []string
	for _, line := range strings.Split(string(toolOutput(t, dir, env, "cargo", "test", "--no-run", "--message-format=json")), "\n") {
		var msg struct {
			Executable string `json:"executable"`
		}
		if json.Unmarshal([]byte(line), &msg) == nil && msg.Executable != "" {
			exes = append(exes, msg.Executable)
		}
	}
	if len(exes) == 0 {
		t.Fatal("cargo test --no-run listed no test programs")
	}
	return exes
}

// rustcLLVMMajor is the LLVM major of the rustc that builds in dir, whose
// profiles only that LLVM's tools read.
func rustcLLVMMajor(t testing.TB, dir string) string {
	t.Helper()
	m := regexp.MustCompile(`LLVM version: (\d+)`).FindSubmatch(toolOutput(t, dir, nil, "rustc", "--version", "--verbose"))
	if m == nil {
		t.Fatal("rustc names no LLVM version")
	}
	return string(m[1])
}
