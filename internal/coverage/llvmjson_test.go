package coverage

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/testutil/nativeprojects"
)

// The LLVM whose clang, llvm-profdata and llvm-cov scripts/install-deps.sh
// installs.
const (
	jsonClang    = "clang-22"
	jsonProfdata = "llvm-profdata-22"
	jsonCov      = "llvm-cov-22"
)

// A program whose lines llvm-cov folds in every way it knows: regions
// starting and ending on one line, a count wrapping across lines, a
// skipped (#if 0) block, a macro, a function never called.
const foldC = `#include <stdlib.h>
#define TWICE(x) ((x) + (x))

static int never(int x) {
	return x * 3;
}

int pick(int x) {
	if (x > 2) return 1; else return 2;
}

int loop(int n) {
	int s = 0;
	for (int i = 0; i < n; i++) {
		s += TWICE(i);
	}
#if 0
	s = never(s);
#endif
	return s;
}

int main(int argc, char **argv) {
	int n = argc > 1 ? atoi(argv[1]) : 3;
	if (n > 100)
		return never(n);
	return pick(n) + loop(n) > 1000;
}
`

// llvmJSONRun builds foldC with clang's source-based coverage, runs it,
// and returns llvm-cov's JSON export and LCOV of the run.
func llvmJSONRun(t *testing.T) (dir string, export, lcov []byte) {
	t.Helper()
	nativeprojects.Need(t, jsonClang, jsonProfdata, jsonCov)
	dir = t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "fold.c"), []byte(foldC), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(env map[string]string, argv ...string) []byte {
		t.Helper()
		var out, errb bytes.Buffer
		res, err := spawn.Run(context.Background(), spawn.Spec{Argv: argv, Dir: dir, Env: env, Stdout: &out, Stderr: &errb})
		if err != nil || !res.Success() {
			t.Fatalf("%v: %v %v\n%s", argv, res, err, errb.String())
		}
		return out.Bytes()
	}
	run(nil, jsonClang, "-O0", "-fprofile-instr-generate", "-fcoverage-mapping", "-o", "fold", "fold.c")
	run(map[string]string{"LLVM_PROFILE_FILE": filepath.Join(dir, "fold.profraw")}, "./fold")
	run(nil, jsonProfdata, "merge", "-sparse", "-o", "fold.profdata", "fold.profraw")
	export = run(nil, jsonCov, "export", "-instr-profile=fold.profdata", "./fold")
	lcov = run(nil, jsonCov, "export", "-format=lcov", "-instr-profile=fold.profdata", "./fold")
	return dir, export, lcov
}

// The JSON export, folded into lines, gives what llvm-cov's own LCOV of
// the same run gives: each line's count and the file's figures.
func TestReadLLVMJSONMatchesLLVMCovLCOV(t *testing.T) {
	dir, export, lcov := llvmJSONRun(t)
	got, err := ReadLLVMJSON(bytes.NewReader(export), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	lc := newLineCounts()
	if err := readLCOV(bytes.NewReader(lcov), dir, lc); err != nil {
		t.Fatal(err)
	}
	want := lc.report(ToolLLVM, newClassifier(dir, nil))
	if len(got.Files) != 1 || len(want.Files) != 1 {
		t.Fatalf("files %+v, LCOV's %+v", got.Files, want.Files)
	}
	g, w := got.Files[0], want.Files[0]
	if g.Path != "fold.c" || g.Lines != w.Lines || g.Covered != w.Covered {
		t.Errorf("%s: %d of %d lines, llvm-cov's LCOV: %s %d of %d", g.Path, g.Covered, g.Lines, w.Path, w.Covered, w.Lines)
	}
	if !slices.Equal(g.Uncovered, w.Uncovered) || !slices.Equal(g.CoveredRanges, w.CoveredRanges) {
		t.Errorf("ranges: uncovered %v covered %v; llvm-cov's LCOV: uncovered %v covered %v", g.Uncovered, g.CoveredRanges, w.Uncovered, w.CoveredRanges)
	}
	// never's body and main's return never(n) ran not.
	if !slices.Equal(g.Uncovered, []Range{{4, 6}, {26, 26}}) {
		t.Errorf("uncovered %v, want never (4-6) and return never(n) (26)", g.Uncovered)
	}
	if got.Totals.Files != 1 || got.Totals.Lines != w.Lines {
		t.Errorf("totals %+v", got.Totals)
	}
}

func TestReadLLVMJSONRefusesHostileInput(t *testing.T) {
	for _, in := range []string{
		"",
		"[]",
		`{"type":"llvm.coverage.json.export"}`,
		`{"data":[{"files":[{"filename":"a.c","segments":[[1,1,1]]}]}]}`,
		`{"data":[{"files":[{"filename":"a.c","segments":[[0,1,1,1,1]]}]}]}`,
		`{"data":[{"files":[{"filename":"","segments":[]}]}]}`,
		`{"data":[{"files":[{"filename":"a.c","segments":[[1,1,-4,1,1]]}]}]}`,
		`{"data":[{"files":[`,
	} {
		if _, err := ReadLLVMJSON(strings.NewReader(in), "/p", nil); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
}

// A recorded SwiftPM coverage JSON (testdata/PROVENANCE.tsv): the
// package's own files count, the checkouts of its dependencies are apart,
// and each file's figures are llvm-cov's own.
func TestReadLLVMJSONSwiftPMRecording(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "swiftpm-codecov.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	const pkg = "/Users/franco/Projects/Logger"
	rep, err := ReadLLVMJSON(f, pkg, []string{pkg + "/.build"})
	if err != nil {
		t.Fatal(err)
	}
	// Logger.swift 29 of 34, five test files 25 of 25, LoggerTests.swift
	// 19 of 19, SpyPrinter.swift 3 of 3; the export's totals, 413 of 4855,
	// hold the 53 checked-out files too.
	if rep.Totals != (Counts{Files: 8, Lines: 181, Covered: 176}) {
		t.Errorf("totals %+v", rep.Totals)
	}
	if v := rep.Apart[Vendored]; v.Files != 53 || v.Lines != 4855-181 || v.Covered != 413-176 {
		t.Errorf("apart %+v, want 53 vendored files of 4674 lines, 237 covered", rep.Apart)
	}
	for _, f := range rep.Files {
		if f.Path == "Sources/Logger/Logger.swift" && (f.Kind != Own || f.Lines != 34 || f.Covered != 29 || len(f.Uncovered) == 0) {
			t.Errorf("Logger.swift: %+v", f)
		}
	}
}

// SwiftPM's answer is the last line of what it prints, however much came
// before it.
func TestTailKeepsTheEnd(t *testing.T) {
	var tl tail
	for range 1000 {
		tl.Write([]byte("Fetching https://example.invalid/dependency\n"))
	}
	tl.Write([]byte("/p/.build/debug/codecov/P.json\n"))
	if got := lastLines(string(tl.b), 1); got != "/p/.build/debug/codecov/P.json" || len(tl.b) > limitedMax {
		t.Errorf("last line %q, %d bytes kept", got, len(tl.b))
	}
}
