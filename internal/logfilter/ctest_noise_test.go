package logfilter

import (
	"strings"
	"testing"
)

// The filtered log of a CTest run keeps the crash, its output and the
// summary, not the progress lines of the passing tests after it.
func TestCTestCrashContextStopsAtNextTest(t *testing.T) {
	log := `      Start 17: cjson_add
17/19 Test #17: cjson_add ........................***Exception: SegFault  0.00 sec
/src/tests/cjson_add.c:100:cjson_add_null_should_add_null:PASS

      Start 18: readme_examples
18/19 Test #18: readme_examples ..................   Passed    0.00 sec
      Start 19: minify_tests
19/19 Test #19: minify_tests .....................   Passed    0.00 sec

95% tests passed, 1 tests failed out of 19
The following tests FAILED:
	 17 - cjson_add (SEGFAULT)
Errors while running CTest
`
	var out strings.Builder
	f := New(Standard, &out)
	if _, err := f.Write([]byte(log)); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, keep := range []string{"***Exception: SegFault", "cjson_add_null_should_add_null", "95% tests passed", "17 - cjson_add (SEGFAULT)"} {
		if !strings.Contains(got, keep) {
			t.Errorf("dropped %q:\n%s", keep, got)
		}
	}
	for _, drop := range []string{"Start 18", "readme_examples", "minify_tests"} {
		if strings.Contains(got, drop) {
			t.Errorf("kept %q, a passing test's progress:\n%s", drop, got)
		}
	}
}
