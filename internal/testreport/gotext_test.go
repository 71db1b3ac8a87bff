package testreport

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const goTextDir = "testdata/gotext/"

// goTextCase is what a case of a recorded go test log must be; File is
// matched as a suffix, Message as a substring.
type goTextCase struct {
	status  Status
	file    string
	line    int
	kind    string
	message string
}

func parseGoTextFile(t *testing.T, name string) *Report {
	t.Helper()
	f, err := os.Open(goTextDir + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rep, err := ParseAuto(f)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Format != FormatGoText {
		t.Fatalf("detected as %q, want %q", rep.Format, FormatGoText)
	}
	return rep
}

// TestGoTextLogs reads real `go test` logs, with and without -v
// (testdata/gotext/record.sh made them), as detected by ParseAuto. The
// expectations are written from reading each log.
func TestGoTextLogs(t *testing.T) {
	const quiet = "go test ran without -v"
	tests := []struct {
		log    string
		status Status
		totals Totals
		cases  map[string]goTextCase // the cases that did not pass, and some that did
		cut    []CutShort            // How matched as a substring
		notes  []string              // substrings, each in some note
		build  []string
		runner []string
	}{
		// Passing runs: -v lists every test, subtests, a skip with its
		// reason, t.Log output and parallel tests; without -v a package
		// is its "ok" line, and counts as one passed case.
		{log: "pass-v.txt", status: Passed, totals: Totals{Total: 8, Passed: 7, Skipped: 1},
			cases: map[string]goTextCase{
				"TestSkip":    {status: Skipped, file: "calc_test.go", line: 17, message: "not today"},
				"TestSub/two": {status: Passed}, "TestPar2": {status: Passed}, "TestSum": {status: Passed},
			},
			notes: []string{"example.com/gt/notests: no test files"}},
		{log: "pass.txt", status: Passed, totals: Totals{Total: 2, Passed: 2},
			cases: map[string]goTextCase{"example.com/gt/calc": {status: Passed}, "example.com/gt/hash": {status: Passed}},
			notes: []string{quiet, "example.com/gt/notests: no test files"}},
		{log: "pass-local.txt", status: Passed, totals: Totals{Total: 1, Passed: 1}},
		{log: "cached.txt", status: Passed, totals: Totals{Total: 2, Passed: 2}, notes: []string{quiet}},
		{log: "cached-v.txt", status: Passed, totals: Totals{Total: 8, Passed: 7, Skipped: 1}},
		// Failed assertions, located at the t.Error line; a parent of a
		// failed subtest fails too.
		{log: "fail-v.txt", status: Failed, totals: Totals{Total: 6, Passed: 3, Failed: 3},
			cases: map[string]goTextCase{
				"TestWrong":    {status: Failed, file: "fail_test.go", line: 12, message: "add(2, 2) = 4, want 5\n        second line"},
				"TestSub":      {status: Failed},
				"TestSub/zero": {status: Failed, file: "fail_test.go", line: 18, message: "    fail_test.go:18: zero is wrong"},
				"TestSub/one":  {status: Passed},
			}},
		{log: "fail.txt", status: Failed, totals: Totals{Total: 4, Passed: 1, Failed: 3},
			cases: map[string]goTextCase{
				"TestWrong":    {status: Failed, file: "fail_test.go", line: 12, message: "add(2, 2) = 4, want 5\n        second line"},
				"TestSub":      {status: Failed},
				"TestSub/zero": {status: Failed, file: "fail_test.go", line: 18, message: "    fail_test.go:18: zero is wrong"},
			}},
		{log: "fail-local.txt", status: Failed, totals: Totals{Total: 3, Failed: 3},
			cases: map[string]goTextCase{"TestWrong": {status: Failed, file: "fail_test.go", line: 12}}},
		// Parallel tests: each line is its test's, by "=== CONT"/"=== NAME".
		{log: "par-v.txt", status: Failed, totals: Totals{Total: 2, Passed: 1, Failed: 1},
			cases: map[string]goTextCase{"TestP1": {status: Failed, file: "par_test.go", line: 9, message: "    par_test.go:9: one\n    par_test.go:12: three"}}},
		{log: "par.txt", status: Failed, totals: Totals{Total: 1, Failed: 1},
			cases: map[string]goTextCase{"TestP1": {status: Failed, file: "par_test.go", line: 9, message: "    par_test.go:9: one\n    par_test.go:12: three"}}},
		// A nil dereference: the test crashed, its message the panic's
		// trace (which names the frame: nilderef.Get at n.go:6).
		{log: "panic-v.txt", status: Crashed, totals: Totals{Total: 2, Passed: 1, Crashed: 1},
			cases: map[string]goTextCase{"TestNil": {status: Crashed, message: "nil pointer dereference [recovered, repanicked]\n[signal SIGSEGV"}}},
		{log: "panic.txt", status: Crashed, totals: Totals{Total: 1, Crashed: 1},
			cases: map[string]goTextCase{"TestNil": {status: Crashed, message: "example.com/gt/nilderef.Get(...)\n\t/tmp/gotext-fixture/nilderef/n.go:6\n"}}},
		// A panic in a subtest: the testing package prints the parent's
		// FAIL line first; go test -json blames the parent, and so does
		// this reader.
		{log: "subpanic-v.txt", status: Crashed, totals: Totals{Total: 3, Passed: 1, Failed: 1, Crashed: 1},
			cases: map[string]goTextCase{"TestSub": {status: Crashed, message: "s_test.go:9"}, "TestSub/boom": {status: Failed}}},
		{log: "subpanic.txt", status: Crashed, totals: Totals{Total: 2, Failed: 1, Crashed: 1},
			cases: map[string]goTextCase{"TestSub": {status: Crashed, message: "assignment to entry in nil map"}}},
		// A goroutine's panic: -v names the running test; without -v no
		// line does.
		{log: "gopanic-v.txt", status: Crashed, totals: Totals{Total: 2, Passed: 1, Crashed: 1},
			cases: map[string]goTextCase{"TestGo": {status: Crashed, message: "the test binary exited before the test finished\npanic: in goroutine"}}},
		{log: "gopanic.txt", status: Crashed, totals: Totals{Total: 1, Crashed: 1},
			cases: map[string]goTextCase{UnnamedCase: {status: Crashed, message: "panic: in goroutine"}}},
		// The -timeout alarm errors the test it names, located where its
		// goroutine was; the dump is not read as failures.
		{log: "timeout-v.txt", status: Errored, totals: Totals{Total: 2, Passed: 1, Errored: 1},
			cases: map[string]goTextCase{"TestHang": {status: Errored, kind: KindTimeout, file: "/timeout/t_test.go", line: 11, message: "test timed out after 2s\ngoroutine"}}},
		{log: "timeout.txt", status: Errored, totals: Totals{Total: 1, Errored: 1},
			cases: map[string]goTextCase{"TestHang": {status: Errored, kind: KindTimeout, file: "/timeout/t_test.go", line: 11}}},
		// A hung subtest: it timed out, its parent waited for it, and a
		// paused parallel test never ran; none of them is cut short.
		{log: "subhang-v.txt", status: Errored, totals: Totals{Total: 3, Errored: 3},
			cases: map[string]goTextCase{
				"TestSub/hang": {status: Errored, kind: KindTimeout, file: "/subhang/h_test.go", line: 11},
				"TestSub":      {status: Errored, message: "test timed out after 2s while its subtests ran"},
				"TestP1":       {status: Errored, message: "(test timed out after 2s)"},
			}},
		{log: "subhang.txt", status: Errored, totals: Totals{Total: 2, Errored: 2},
			cases: map[string]goTextCase{"TestSub/hang": {status: Errored, kind: KindTimeout, file: "/subhang/h_test.go", line: 11}}},
		// syscall.Exit(0): go test says ok. -v shows the test that never
		// finished; without -v the run cannot be told from a pass.
		{log: "exit0-v.txt", status: Errored, totals: Totals{Total: 3, Passed: 2, Errored: 1},
			cases: map[string]goTextCase{"TestMid": {status: Errored, file: "e_test.go", line: 11, message: "about to exit"}, "TestBefore": {status: Passed}},
			cut:   []CutShort{{Suite: "example.com/gt/exit0", Test: "TestMid", How: "exit 0"}}},
		{log: "exit0.txt", status: Passed, totals: Totals{Total: 2, Passed: 2}, notes: []string{quiet}},
		{log: "exit0-local.txt", status: Passed, totals: Totals{Total: 1, Passed: 1}, notes: []string{quiet}},
		// os.Exit(1) in a test, log.Fatal in TestMain: no binary FAIL line.
		{log: "exit1-v.txt", status: Errored, totals: Totals{Total: 2, Passed: 1, Errored: 1},
			cases: map[string]goTextCase{"TestExits": {status: Errored, message: "about to exit"}},
			cut:   []CutShort{{Suite: "example.com/gt/exit1", Test: "TestExits", How: "a non-zero exit"}}},
		{log: "exit1.txt", status: Errored,
			cut: []CutShort{{Suite: "example.com/gt/exit1", How: "a non-zero exit without the test binary's FAIL line"}}},
		{log: "testmain-fatal.txt", status: Errored,
			cut: []CutShort{{Suite: "example.com/gt/mainfatal", How: "a non-zero exit without the test binary's FAIL line"}}},
		{log: "testmain-fatal-v.txt", status: Errored,
			cut: []CutShort{{Suite: "example.com/gt/mainfatal", How: "without the test binary's FAIL line"}}},
		// Data races: the race detector's report is the failed test's.
		{log: "race-v.txt", status: Failed, totals: Totals{Total: 1, Failed: 1},
			cases: map[string]goTextCase{"TestCount": {status: Failed, kind: KindDataRace, file: "/race/r.go", line: 12, message: "WARNING: DATA RACE"}}},
		{log: "race.txt", status: Failed, totals: Totals{Total: 1, Failed: 1},
			cases: map[string]goTextCase{"TestCount": {status: Failed, kind: KindDataRace, file: "/race/r.go", line: 12, message: "race detected during execution of test"}}},
		// Build and setup failures: the compiler's lines, and the other
		// package's result.
		{log: "build-fail.txt", status: Failed, totals: Totals{Total: 1, Passed: 1},
			build: []string{"buildfail/b.go:4:9: undefined: y"}},
		{log: "setup-fail.txt", status: Failed,
			build:  []string{"setupfail/s_test.go:6:2: no required module provides package example.com/gt/nosuch; to add it:"},
			runner: []string{"FAIL\texample.com/gt/setupfail [setup failed]"}},
	}
	for _, tt := range tests {
		t.Run(tt.log, func(t *testing.T) {
			rep := parseGoTextFile(t, tt.log)
			if rep.Status != tt.status || rep.Totals != tt.totals {
				t.Errorf("status %s, totals %+v; want %s, %+v (notes %q)", rep.Status, rep.Totals, tt.status, tt.totals, rep.Notes)
			}
			for name, want := range tt.cases {
				i := slices.IndexFunc(rep.Cases, func(c Case) bool { return c.Name == name })
				if i < 0 {
					t.Errorf("%s: no such case in %+v", name, rep.Cases)
					continue
				}
				c := rep.Cases[i]
				if c.Status != want.status || c.Kind != want.kind || !strings.HasSuffix(c.File, want.file) || c.Line != want.line ||
					!strings.Contains(c.Message, want.message) {
					t.Errorf("%s: %s %q at %s:%d, message %q\nwant %s %q at …%s:%d, message with %q",
						name, c.Status, c.Kind, c.File, c.Line, c.Message, want.status, want.kind, want.file, want.line, want.message)
				}
				if strings.Contains(c.Message, "goroutine 1 [") {
					t.Errorf("%s: the message holds the whole goroutine dump:\n%s", name, c.Message)
				}
			}
			checkCutShort(t, rep.CutShort, tt.cut)
			for _, n := range tt.notes {
				if !slices.ContainsFunc(rep.Notes, func(s string) bool { return strings.Contains(s, n) }) {
					t.Errorf("no note says %q: %q", n, rep.Notes)
				}
			}
			if !slices.Equal(rep.BuildErrors, tt.build) || !slices.Equal(rep.RunnerErrors, tt.runner) {
				t.Errorf("build errors %q, runner errors %q; want %q, %q", rep.BuildErrors, rep.RunnerErrors, tt.build, tt.runner)
			}
		})
	}
}

func checkCutShort(t *testing.T, got, want []CutShort) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("cut short %+v, want %+v", got, want)
		return
	}
	for i, w := range want {
		if g := got[i]; g.Suite != w.Suite || g.Test != w.Test || !strings.Contains(g.How, w.How) {
			t.Errorf("cut short %+v, want %+v", g, w)
		}
	}
}

// TestGoTextAgreesWithGoJSON: the same run, printed by go test -v and by go
// test -json, gives the same cases, statuses, locations and runs cut short.
func TestGoTextAgreesWithGoJSON(t *testing.T) {
	type key struct{ suite, name string }
	type view struct {
		status     Status
		kind, file string
		line       int
	}
	cases := func(rep *Report) map[key]view {
		m := map[key]view{}
		for _, c := range rep.Cases {
			m[key{c.Suite, c.Name}] = view{c.Status, c.Kind, c.File, c.Line}
		}
		return m
	}
	for _, name := range []string{"panic", "timeout", "subhang", "subpanic", "exit1"} {
		t.Run(name, func(t *testing.T) {
			text := parseGoTextFile(t, name+"-v.txt")
			js := parseFile(t, FormatGoJSON, goTextDir+name+".json")
			if text.Status != js.Status || text.Totals != js.Totals {
				t.Errorf("go-text %s %+v, go-json %s %+v", text.Status, text.Totals, js.Status, js.Totals)
			}
			tc, jc := cases(text), cases(js)
			for k, v := range jc {
				if tc[k] != v {
					t.Errorf("%v: go-text %+v, go-json %+v", k, tc[k], v)
				}
			}
			if len(tc) != len(jc) {
				t.Errorf("go-text cases %+v, go-json %+v", tc, jc)
			}
			checkCutShort(t, text.CutShort, js.CutShort)
		})
	}
}

// TestGoTextLogCut: a log cut after any line is a pass only where it ends
// with a package's line; cut inside a package's output, the run was cut
// short, naming the test that was running under -v.
func TestGoTextLogCut(t *testing.T) {
	for _, name := range []string{"pass-v.txt", "fail-v.txt", "fail.txt", "par-v.txt"} {
		raw, err := os.ReadFile(goTextDir + name)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.SplitAfter(string(raw), "\n")
		isPackageLine := func(l string) bool {
			return strings.HasPrefix(l, "ok  \t") || strings.HasPrefix(l, "FAIL\t") || strings.HasPrefix(l, "?   \t")
		}
		for n := 1; n < len(lines); n++ {
			log := strings.Join(lines[:n], "")
			rep, err := Parse(FormatGoText, strings.NewReader(log))
			if err != nil {
				t.Fatal(err)
			}
			last := lines[n-1]
			// go test's own last line, "FAIL", after the last package's.
			atPackageLine := isPackageLine(last) || last == "FAIL\n" && n > 1 && isPackageLine(lines[n-2])
			if atPackageLine != (len(rep.CutShort) == 0) {
				t.Errorf("%s cut after line %d %q: cut short %+v", name, n, last, rep.CutShort)
			}
			if !atPackageLine && rep.Status == Passed {
				t.Errorf("%s cut after line %d %q: passed", name, n, last)
			}
		}
	}
	// Cut in the middle of TestSub's subtests, and after calc's PASS line.
	lines := strings.SplitAfter(mustRead(t, goTextDir+"pass-v.txt"), "\n")
	rep, _ := Parse(FormatGoText, strings.NewReader(strings.Join(lines[:7], "")))
	checkCutShort(t, rep.CutShort, []CutShort{
		{Suite: FormatGoText, Test: "TestSub", How: "the output ended"},
		{Suite: FormatGoText, Test: "TestSub/one", How: "the output ended"},
		{Suite: FormatGoText, Test: "TestSub/two", How: "the output ended"},
	})
	i := slices.Index(lines, "PASS\n")
	rep, _ = Parse(FormatGoText, strings.NewReader(strings.Join(lines[:i+1], "")))
	checkCutShort(t, rep.CutShort, []CutShort{{Suite: FormatGoText, How: "the output ended before the package reported its result"}})
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestGoTextShapes: hand-made variants of go test's lines that the recorded
// logs do not show.
func TestGoTextShapes(t *testing.T) {
	tests := []struct {
		name, log string
		status    Status
		cut       []CutShort
		check     func(*Report) bool
	}{
		// -v with syscall.Exit(0) after the last test ended: ok, no PASS.
		{"exit 0 after the tests", "=== RUN   TestA\n--- PASS: TestA (0.00s)\nok  \tp\t0.01s\n", Errored,
			[]CutShort{{Suite: "p", How: "exit 0 without the test binary's PASS line"}}, nil},
		// A test printing "PASS" itself is not the binary's verdict.
		{"a test's own PASS line", "=== RUN   TestA\nPASS\nok  \tp\t0.01s\n", Errored,
			[]CutShort{{Suite: "p", Test: "TestA", How: "exit 0"}}, nil},
		// go test in the package's directory: "exit status 1".
		{"exit status", "about to exit\nexit status 3\nFAIL\tp\t0.01s\n", Errored,
			[]CutShort{{Suite: "p", How: "exit status 3 without the test binary's FAIL line"}}, nil},
		// TestMain exits 1 after m.Run printed PASS.
		{"FAIL after PASS", "PASS\nFAIL\tp\t0.01s\n", Errored, nil,
			func(r *Report) bool {
				return len(r.RunnerErrors) == 1 && strings.Contains(r.RunnerErrors[0], "after the test binary's PASS line")
			}},
		{"no tests to run", "testing: warning: no tests to run\nPASS\nok  \tp\t0.01s [no tests to run]\n", NoTests, nil,
			func(r *Report) bool { return slices.Contains(r.Notes, "p: no tests to run") }},
		{"coverage", "PASS\ncoverage: 50.0% of statements\nok  \tp\t0.01s\tcoverage: 50.0% of statements\n\tq\t\tcoverage: 0.0% of statements\n", Passed, nil,
			func(r *Report) bool { return slices.Contains(r.Notes, "q: no test files") }},
		// An example's got/want lines are not indented.
		{"example", "--- FAIL: ExampleX (0.00s)\ngot:\n1\nwant:\n2\nFAIL\nFAIL\tp\t0.01s\n", Failed, nil,
			func(r *Report) bool { return r.Cases[0].Message == "got:\n1\nwant:\n2" }},
		// A t.Log line then the panic, without -v.
		{"log then panic", "--- FAIL: TestA (0.00s)\n    a_test.go:3: before\npanic: boom [recovered]\n\tpanic: boom\n\ngoroutine 5 [running]:\nFAIL\tp\t0.01s\n", Crashed, nil,
			func(r *Report) bool {
				return r.Cases[0].Name == "TestA" && r.Cases[0].File == "a_test.go" && strings.Contains(r.Cases[0].Message, "panic: boom")
			}},
		// A vet failure, with its two headers; a test file of package p_test.
		{"vet", "# p\n# [p]\n./a_test.go:8:2: fmt.Printf format %d has arg s of wrong type string\nFAIL\tp [build failed]\n" +
			"# q_test [q.test]\n./q_test.go:3:1: undefined: z\nFAIL\tq [build failed]\nFAIL\n", Failed, nil,
			func(r *Report) bool {
				return slices.Equal(r.BuildErrors, []string{"./a_test.go:8:2: fmt.Printf format %d has arg s of wrong type string", "./q_test.go:3:1: undefined: z"}) &&
					len(r.RunnerErrors) == 0
			}},
		// Compiler lines of a build that did not fail are not errors.
		{"cgo warning", "# p\nwarning: x\n=== RUN   TestA\n--- PASS: TestA (0.00s)\nPASS\nok  \tp\t0.01s\n", Passed, nil,
			func(r *Report) bool { return len(r.BuildErrors) == 0 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := Parse(FormatGoText, strings.NewReader(tt.log))
			if err != nil {
				t.Fatal(err)
			}
			if rep.Status != tt.status {
				t.Errorf("status %s, want %s: %+v", rep.Status, tt.status, rep)
			}
			checkCutShort(t, rep.CutShort, tt.cut)
			if tt.check != nil && !tt.check(rep) {
				t.Errorf("report %+v", rep)
			}
		})
	}
}

// TestGoTextHostile: broken and adversarial input never panics, and never
// passes without a passing case.
func TestGoTextHostile(t *testing.T) {
	for _, in := range []string{
		"", "\n", "ok  \t\n", "FAIL\t\n", "?   \t", "# \n", "# [\n", "=== RUN\n", "=== RUN   \n", "--- FAIL: \n",
		"--- FAIL: X (abc)\n", "--- PASS: X (0.00s\n", "panic: \n", "panic: test timed out after\n\trunning tests:\n\t\t\n",
		"panic: test timed out after 1s\ngoroutine 1 [x]:\n\tfoo.go:x\nf(\n\t:3\n", "\t\t\tcoverage: \n",
		"=== RUN   TestA\n" + strings.Repeat("x", 1<<20), strings.Repeat("=== RUN   T\n", 1000),
		"PASS\n", "PASS\nok  \tp\t(cached)\n", "=== CONT  TestA\n--- SKIP: TestA (0.00s)\nok  \tp\n",
	} {
		rep, err := Parse(FormatGoText, strings.NewReader(in))
		if err != nil {
			t.Fatalf("%.40q: %v", in, err)
		}
		if rep.Status == Passed && rep.Totals.Passed == 0 {
			t.Errorf("%.40q: passed with no passed case", in)
		}
	}
}

// TestDetectGoText: DetectFormat picks go-text for go test's text, go-json
// for its events, and the old formats for every other recorded log.
func TestDetectGoText(t *testing.T) {
	paths, _ := filepath.Glob(goTextDir + "*")
	for _, p := range paths {
		want := FormatGoText
		switch filepath.Ext(p) {
		case ".json":
			want = FormatGoJSON
		case ".sh", "":
			continue // record.sh, README
		}
		if got := DetectFormat([]byte(mustRead(t, p))); got != want {
			t.Errorf("%s: %q, want %q", p, got, want)
		}
		if got := GoFormat([]byte(mustRead(t, p))); got != want {
			t.Errorf("GoFormat(%s) = %q, want %q", p, got, want)
		}
	}
	var others []string
	for _, pattern := range []string{"testdata/*.*", "testdata/*/*", fixtures + "/*/*"} {
		paths, _ := filepath.Glob(pattern)
		others = append(others, paths...)
	}
	for _, p := range others {
		if st, err := os.Stat(p); err != nil || st.IsDir() || strings.HasPrefix(p, goTextDir) {
			continue
		}
		if got := DetectFormat([]byte(mustRead(t, p))); got == FormatGoText {
			t.Errorf("%s: detected as go-text", p)
		}
	}
	for _, tt := range []struct{ log, want string }{
		{"=== RUN   TestA\nrunning migrations\n--- PASS: TestA (0.00s)\nPASS\nok  \tp\t0.1s\n", FormatGoText},
		{"--- FAIL: TestA (0.00s)\n    a_test.go:3: no\nFAIL\nFAIL\tp\t0.1s\n", FormatGoText},
		// CTest running a Go test binary: CTest's log.
		{"1/1 Test #1: gotest ...***Failed  0.01 sec\n=== RUN   TestA\n--- FAIL: TestA (0.00s)\n", FormatCTest},
		// A bare PASS line proves nothing.
		{"make check\nPASS\n", ""},
	} {
		if got := DetectFormat([]byte(tt.log)); got != tt.want {
			t.Errorf("DetectFormat(%q) = %q, want %q", tt.log, got, tt.want)
		}
	}
}
