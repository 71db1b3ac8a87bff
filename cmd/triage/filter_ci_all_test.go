package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/ciout"
	"github.com/triage-dev/triage/internal/testreport"
)

// ciLog is a recorded log and the --toolchain that reads it.
type ciLog struct{ path, toolchain string }

// recordedLogs are the recorded logs of every toolchain `triage filter`
// reads: go test -json and its text output, cargo, nextest, ctest, meson,
// automake, make and gcc, a JUnit file (testreport's testdata), each C and
// C++ test framework's own output (testdata/frameworks), and xcodebuild,
// swift test and JUnit files of other tools (the shared fixtures).
func recordedLogs(t *testing.T) []ciLog {
	t.Helper()
	var logs []ciLog
	add := func(glob, toolchain string) {
		paths, err := filepath.Glob(glob)
		if err != nil || len(paths) == 0 {
			t.Fatalf("no recorded logs at %s (%v)", glob, err)
		}
		for _, p := range paths {
			logs = append(logs, ciLog{p, toolchain})
		}
	}
	td := testreportData
	add(td+"/go-test-json*.log", "go-json")
	add(td+"/gotext/*.txt", "go-text")
	add(td+"/cargo-test*.log", "cargo")
	add(td+"/nextest/*.txt", "nextest")
	add(td+"/ctest*.log", "ctest")
	add(td+"/meson/*.txt", "meson")
	add(td+"/automake*.log", "automake")
	add(td+"/make*.log", "make")
	add(td+"/ctest-junit.xml", "junit")
	for _, fw := range []string{"boost-test", "catch2", "check", "cmocka", "criterion", "cunit", "doctest", "gtest", "tap", "unity"} {
		add(td+"/frameworks/"+fw+"/*.log", fw)
	}
	if _, err := os.Stat(xcodebuildFixtures); err != nil {
		t.Run("xcodebuild", func(t *testing.T) {
			t.Skipf("no fixtures in %s (the shared fixtures folder is absent)", xcodebuildFixtures)
		})
		return logs
	}
	add(xcodebuildFixtures+"/*xcodebuild*.txt", "xcodebuild")
	add(xcodebuildFixtures+"/fastlane_*.log", "xcodebuild")
	add(xcodebuildFixtures+"/xcpretty_*.txt", "xcodebuild")
	add(xcodebuildFixtures+"/xcbeautify_*.txt", "swift")
	add(xcodebuildFixtures+"/xcmcp_*.txt", "swift")
	add(xcodebuildFixtures+"/../junit/*.xml", "junit")
	return logs
}

// annotationLine is a GitHub Actions workflow command as ciout writes it.
var annotationLine = regexp.MustCompile(`^::(error|warning|notice)(?: (?:file=[^,:\r\n]+(?:,line=\d+(?:,col=\d+)?)?,?)?(?:title=[^:\r\n]+)?)?::[^\r\n]*$`)

// `triage filter --github-annotations --junit` on the recorded logs of
// every toolchain it reads (issue 45): each annotation is a well-formed
// workflow command; each failed, errored or crashed test has its error
// annotation, at its file when the log names one; a failing log has at
// least one error annotation; the JUnit file holds the parsed tests (the
// same totals, each test by name) and is not written when none were parsed.
func TestFilterCIOnEveryToolchain(t *testing.T) {
	seen := map[string]int{}
	for _, l := range recordedLogs(t) {
		name := strings.TrimPrefix(l.path, testreportData+"/")
		t.Run(name, func(t *testing.T) {
			var js struct {
				Tests *testreport.Report `json:"tests"`
			}
			code, out := runFilter(t, "--toolchain", l.toolchain, "--output", "json", l.path)
			if err := json.Unmarshal([]byte(out), &js); err != nil {
				t.Fatalf("--output json: %v\n%s", err, out)
			}
			junit := filepath.Join(t.TempDir(), "junit.xml")
			code2, out := runFilter(t, "--toolchain", l.toolchain, "--github-annotations", "--junit", junit, l.path)
			if code2 != code {
				t.Errorf("exit %d with the CI flags, %d without", code2, code)
			}
			anns := annotationsOf(out)
			checkAnnotations(t, anns, js.Tests, code)
			checkJUnit(t, junit, js.Tests)
		})
		seen[l.toolchain]++
	}
	t.Logf("logs per toolchain: %v", seen)
}

// runFilter runs `triage filter` as the binary does, its exit code and stdout.
func runFilter(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code, err := cmdFilter(args, nil, &stdout, &stderr)
	if err != nil {
		t.Fatalf("filter %v: %v (%s)", args, err, stderr.String())
	}
	return code, stdout.String()
}

// annotationsOf is the annotation block: the lines after the summary's
// "log (…)" line.
func annotationsOf(out string) []string {
	i := strings.LastIndex(out, "\nlog (")
	if i < 0 {
		return nil
	}
	_, rest, _ := strings.Cut(out[i+1:], "\n")
	if rest == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(rest, "\n"), "\n")
}

func checkAnnotations(t *testing.T, anns []string, rep *testreport.Report, code int) {
	t.Helper()
	errs := 0
	for _, a := range anns {
		if !annotationLine.MatchString(a) {
			t.Errorf("not a workflow command: %q", a)
		}
		if strings.HasPrefix(a, "::error") {
			errs++
		}
	}
	if code != exitOK && errs == 0 {
		t.Errorf("exit %d and no error annotation: %q", code, anns)
	}
	if code == exitOK && errs > 0 {
		t.Errorf("exit 0 and error annotations: %q", anns)
	}
	if rep == nil {
		return
	}
	all := strings.Join(anns, "\n")
	for i, c := range rep.Failures() {
		if i == ciout.MaxAnnotations-1 {
			break
		}
		want := "title=" + ciout.EscapeProperty(ciout.CaseName(c)+" ["+ciout.CaseStatus(c)+"]")
		if c.File != "" {
			want = "file=" + ciout.EscapeProperty(c.File)
		}
		if !strings.Contains(all, want) {
			t.Errorf("%s (%s) has no annotation with %q:\n%s", c.Name, c.Status, want, all)
		}
	}
}

func checkJUnit(t *testing.T, path string, rep *testreport.Report) {
	t.Helper()
	f, err := os.Open(path)
	if rep == nil || len(rep.Cases) == 0 {
		if err == nil {
			f.Close()
			t.Errorf("a JUnit file written with no tests parsed")
		}
		return
	}
	if err != nil {
		t.Fatalf("no JUnit file for %d tests: %v", len(rep.Cases), err)
	}
	defer f.Close()
	back, err := testreport.Parse(testreport.FormatJUnit, f)
	if err != nil {
		t.Fatalf("the JUnit file does not parse: %v", err)
	}
	want, got := rep.Totals, back.Totals
	if got.Total != want.Total || got.Skipped != want.Skipped || got.Passed != want.Passed ||
		got.Failed+got.Errored+got.Crashed != want.Failed+want.Errored+want.Crashed {
		t.Errorf("JUnit totals %+v, the log's %+v", got, want)
	}
	names := map[string]bool{}
	for _, c := range back.Cases {
		names[c.Name] = true
	}
	for _, c := range rep.Cases {
		if !names[c.Name] {
			t.Errorf("test %q is not in the JUnit file", c.Name)
		}
	}
}
