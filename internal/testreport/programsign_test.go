package testreport

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// checkProgram checks, on a real program of framework built by
// TestRealFrameworks, that its ELF file names its framework (stripped as
// well), and that its rerun alone with RunningArgs names the case it
// ended in by exit(0).
func checkProgram(t *testing.T, dir, exe, framework string, selectCase []string, running string, line int) {
	t.Helper()
	path := filepath.Join(dir, exe)
	if got := ProgramFramework(path); got != framework {
		t.Errorf("ProgramFramework(%s) = %q, want %q", exe, got, framework)
	}
	stripped := filepath.Join(dir, exe+".stripped")
	runIn(t, dir, "strip", "-o", stripped, path)
	if got := ProgramFramework(stripped); got != framework {
		t.Errorf("ProgramFramework(stripped %s) = %q, want %q", exe, got, framework)
	}
	if len(selectCase) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	argv := append(append([]string{"-c", `ulimit -c 0; exec "$@"`, "sh", path}, selectCase...), RunningArgs(framework)...)
	cmd := exec.CommandContext(ctx, "sh", argv...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	_ = cmd.Run() // it ends as the case makes it
	got, ok := RunningCase(out.Bytes())
	if !ok || got.Name != running || filepath.Base(got.File) != "tests.cpp" || got.Line != line {
		t.Errorf("RunningCase = %+v, %v; want %q at tests.cpp:%d\n%s", got, ok, running, line, out.Bytes())
	}
}

func TestProgramFrameworkNone(t *testing.T) {
	for _, path := range []string{"/bin/sh", filepath.Join("testdata", "ctest-junit.xml"), filepath.Join(t.TempDir(), "missing")} {
		if got := ProgramFramework(path); got != "" {
			t.Errorf("ProgramFramework(%s) = %q, want none", path, got)
		}
	}
}

func TestPrintsSummary(t *testing.T) {
	for _, c := range []struct {
		fw   string
		args []string
		want bool
	}{
		{"Catch2", nil, true},
		{"Catch2", []string{"popcount counts set bits", "[tag]"}, true},
		{"Catch2", []string{"-r", "junit"}, false},
		{"Catch2", []string{"--out=x.xml"}, false},
		{"Catch2", []string{"-ojunit.xml"}, false},
		{"Catch2", []string{"--list-tests"}, false},
		{"doctest", []string{"--test-case=adds"}, true},
		{"doctest", []string{"-r=junit"}, false},
		{"GoogleTest", []string{"--gtest_filter=Math.*"}, true},
		{"GoogleTest", []string{"--gtest_list_tests"}, false},
		{"Boost.Test", []string{"--report_level=no"}, false},
		{"", nil, false},
		{"Unity", nil, false},
	} {
		if got := PrintsSummary(c.fw, c.args); got != c.want {
			t.Errorf("PrintsSummary(%q, %q) = %v, want %v", c.fw, c.args, got, c.want)
		}
	}
}

// ctestJUnit is CTest's JUnit file for one test with output out (nil: no
// system-out element).
func ctestJUnit(out *string) string {
	s := `<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="(empty)" tests="1" failures="0" disabled="0" skipped="0" hostname="" time="0">
	<testcase name="test_bits" classname="test_bits" time="0.01" status="run">`
	if out != nil {
		s += "<system-out>" + *out + "</system-out>"
	}
	return s + "</testcase>\n</testsuite>\n"
}

func TestHoldToFramework(t *testing.T) {
	str := func(s string) *string { return &s }
	for _, c := range []struct {
		name, fw string
		out      *string
		cut      bool
	}{
		{"catch2 printed nothing", "Catch2", str(""), true},
		{"catch2 passed", "Catch2", str("\n===\nAll tests passed (9 assertions in 3 test cases)\n\n"), false},
		{"catch2 v3 skipped", "Catch2", str("test cases: 2 | 1 passed | 1 skipped\nassertions: 3 | 3 passed\n\ntest cases: 2 | 1 passed | 1 skipped\n"), false},
		{"catch2 printed its own line", "Catch2", str("debug: 42\n"), true},
		{"no output kept", "Catch2", nil, false},
		{"output cut by ctest", "Catch2", str("a\n[This part of the test output was removed since it exceeds the threshold of 1024 bytes.]\n"), false},
		{"gtest passed", "GoogleTest", str("[==========] 1 test ran.\n[  PASSED  ] 1 test.\n"), false},
		{"gtest printed nothing", "GoogleTest", str(""), true},
		{"boost passed", "Boost.Test", str("Running 3 test cases...\n\n*** No errors detected\n"), false},
		{"unknown framework", "", str(""), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			rep, err := Parse(FormatJUnit, strings.NewReader(ctestJUnit(c.out)))
			if err != nil {
				t.Fatal(err)
			}
			suspect := len(rep.ProgramSuspects()) == 1
			if got := rep.HoldToFramework("test_bits", c.fw); got != c.cut {
				t.Fatalf("HoldToFramework = %v, want %v (cases %+v)", got, c.cut, rep.Cases)
			}
			if c.cut && (!suspect || rep.Status == Passed || len(rep.CutShort) != 1 || !rep.IsCutShort("test_bits")) {
				t.Errorf("suspect %v, status %s, cut short %+v", suspect, rep.Status, rep.CutShort)
			}
			if !c.cut && rep.Status != Passed {
				t.Errorf("status %s, want passed", rep.Status)
			}
		})
	}
}

func TestNameRunning(t *testing.T) {
	rep, err := Parse(FormatJUnit, strings.NewReader(ctestJUnit(new(string))))
	if err != nil {
		t.Fatal(err)
	}
	rep.HoldToFramework("test_bits", "Catch2")
	if !rep.NameRunning("test_bits", Running{Name: "popcount counts set bits", File: "/src/tests/test_bits.cpp", Line: 23}, "named by a rerun") {
		t.Fatal("NameRunning found no cut-short test_bits")
	}
	want := "exit 0 before Catch2's summary (it printed nothing), while running popcount counts set bits (test_bits.cpp:23; named by a rerun)"
	if rep.CutShort[0].How != want || !strings.HasSuffix(rep.Cases[0].Message, want) || rep.IsCutShort("test_bits") {
		t.Errorf("how %q, message %q; want %q", rep.CutShort[0].How, rep.Cases[0].Message, want)
	}
	if rep.NameRunning("other", Running{Name: "x"}, "y") {
		t.Error("NameRunning named a test not cut short")
	}
}

func TestRunningCase(t *testing.T) {
	for _, c := range []struct {
		name, out string
		want      Running
		ok        bool
	}{
		{"catch2 xml", `<Catch name="t">
  <Group name="t">
    <TestCase name="a &amp; b" tags="[x]" filename="/s/t.cpp" line="9">
      <OverallResult success="true"/>
    </TestCase>
    <TestCase name="popcount &quot;bits&quot;" tags="[p]" filename="/s/t.cpp" line="23">
      <Section name="inner" filename="/s/t.cpp" line="24">
`, Running{Name: `popcount "bits"`, File: "/s/t.cpp", Line: 23}, true},
		{"all closed", `<TestCase name="a" filename="f" line="1">
</TestCase>
`, Running{}, false},
		{"boost", `Running 2 test cases...
t.cpp(5): Entering test case "adds"
t.cpp(5): Leaving test case "adds"; testing time: 10us
t.cpp(9): Entering test case "exits_zero"
`, Running{Name: "exits_zero", File: "t.cpp", Line: 9}, true},
		{"nothing", "Segmentation fault\n", Running{}, false},
	} {
		got, ok := RunningCase([]byte(c.out))
		if got != c.want || ok != c.ok {
			t.Errorf("%s: RunningCase = %+v, %v; want %+v, %v", c.name, got, ok, c.want, c.ok)
		}
	}
}

func TestProgramFrameworkChunks(t *testing.T) {
	// A section longer than a chunk, the signature across a chunk's edge.
	dir := t.TempDir()
	src := filepath.Join(dir, "big.c")
	pad := strings.Repeat("x", signChunk-3)
	if err := os.WriteFile(src, []byte("const char pad[] = \""+pad+"\";\nconst char sig[] = \"N5Catch7Session\";\nint main(void){return pad[0]+sig[0];}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	needTool(t, "gcc")
	runIn(t, dir, "gcc", "-O0", "-o", "big", "big.c")
	if got := ProgramFramework(filepath.Join(dir, "big")); got != "Catch2" {
		t.Errorf("ProgramFramework = %q, want Catch2 (signature past the first chunk)", got)
	}
}
