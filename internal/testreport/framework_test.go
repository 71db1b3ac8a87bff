package testreport

import (
	"strings"
	"testing"
)

// TestFrameworkWatch: a test program's own framework output, finished or
// cut short (Unity as cJSON's tests print it; GoogleTest's and Catch2 v3's
// console reporters).
func TestFrameworkWatch(t *testing.T) {
	tests := []struct {
		name, out, want string
	}{
		{"unity finished", "/src/tests/parse_number.c:65:parse_number_should_parse_zero:PASS\n/src/tests/parse_number.c:72:parse_number_should_parse_negative:PASS\n\n-----------------------\n2 Tests 0 Failures 0 Ignored \nOK\n", ""},
		{"unity cut short", "/src/tests/misc_tests.c:700:cjson_add_item_should_work:PASS\n", "Unity"},
		{"unity summary split across writes", "t.c:1:a:PASS\n1 Tes", ""},
		{"gtest finished", "[==========] Running 2 tests from 1 test suite.\n[----------] Global test environment set-up.\n[ RUN      ] Math.Adds\n[       OK ] Math.Adds (0 ms)\n[==========] 2 tests from 1 test suite ran. (0 ms total)\n[  PASSED  ] 2 tests.\n", ""},
		{"gtest cut short", "[==========] Running 2 tests from 1 test suite.\n[ RUN      ] Math.Adds\n", "GoogleTest"},
		{"catch2 finished", "Randomness seeded to: 2571245001\n===============================================================================\nAll tests passed (3 assertions in 2 test cases)\n", ""},
		{"catch2 cut short", "Randomness seeded to: 2571245001\n", "Catch2"},
		{"no framework", "hello\nworld\n", ""},
		{"ctest removed the end", "t.c:1:a:PASS\nt.c:2:b:PASS\n[This part of the test output was removed since it exceeds the threshold of 1024 bytes.]\n", ""},
	}
	for _, tt := range tests {
		w := &frameworkWatch{}
		out := tt.out
		if tt.name == "unity summary split across writes" {
			w.Write([]byte(out))
			w.Write([]byte("ts 0 Failures 0 Ignored\n"))
		} else {
			// Feed in small pieces: XML character data arrives in chunks.
			for len(out) > 0 {
				k := min(len(out), 7)
				w.Write([]byte(out[:k]))
				out = out[k:]
			}
		}
		if got := w.cutShort(); got != tt.want {
			t.Errorf("%s: cutShort = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestJUnitCutShortUnity: CTest's JUnit file with a Unity program that
// exited 0 before its summary: the case is cut short, not passed, and
// AdoptCutShort carries that into the report parsed from the log.
func TestJUnitCutShortUnity(t *testing.T) {
	xml := `<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="Linux-c++" tests="2" failures="0" disabled="0" skipped="0" hostname="" time="0" timestamp="2026-11-25T10:00:00">
<testcase name="parse_number" classname="parse_number" time="0.01" status="run">
<system-out>/src/tests/parse_number.c:65:parse_number_should_parse_zero:PASS&#10;&#10;-----------------------&#10;1 Tests 0 Failures 0 Ignored &#10;OK&#10;</system-out>
</testcase>
<testcase name="cjson_add" classname="cjson_add" time="0.01" status="run">
<system-out>/src/tests/cjson_add.c:40:cjson_add_null_should_fail:PASS&#10;</system-out>
</testcase>
</testsuite>`
	jr, err := Parse(FormatJUnit, strings.NewReader(xml))
	if err != nil {
		t.Fatal(err)
	}
	if len(jr.CutShort) != 1 || jr.CutShort[0].Test != "cjson_add" || jr.Totals.Errored != 1 || jr.Totals.Passed != 1 {
		t.Fatalf("JUnit report: cut short %+v, totals %+v", jr.CutShort, jr.Totals)
	}
	log := "    Start 1: parse_number\n1/2 Test #1: parse_number .....................   Passed    0.01 sec\n" +
		"    Start 2: cjson_add\n2/2 Test #2: cjson_add ........................   Passed    0.01 sec\n\n100% tests passed, 0 tests failed out of 2\n"
	rep, err := Parse(FormatCTest, strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Status != Passed {
		t.Fatalf("the log alone: %s", rep.Status)
	}
	if n := rep.AdoptCutShort(jr); n != 1 || rep.Status == Passed || rep.Totals.Errored != 1 || rep.Totals.Passed != 1 {
		t.Fatalf("after AdoptCutShort (%d): status %s totals %+v", n, rep.Status, rep.Totals)
	}
	if c := rep.Cases[1]; c.Status != Errored || !strings.Contains(c.Message, "Unity's summary") {
		t.Errorf("cjson_add: %+v", c)
	}
}
