package testreport

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"
)

// nextest's output, as its reporter writes it (testdata/nextest/README): a
// test that crashed, a failure with a retried, a slow and a timed-out test,
// a failure in the older shape, runs cut short or stopped, a pass.
func TestNextest(t *testing.T) {
	for _, tc := range []struct {
		name     string // the log in testdata/nextest
		status   Status
		cases    string // name:status ... in order
		cutShort string // part of the cut-short entry's How; "" for none
		where    string // file:line of the first failure; "" for none
	}{
		{"crash.txt", Crashed, "tests::adds:passed tests::walks_list:crashed tests::formats:passed", "", ""},
		{"fail.txt", Failed, "tests::adds:passed tests::parses:failed tests::flaky_once:passed waits_long:errored quick:passed", "", "src/lib.rs:42"},
		{"fail-old.txt", Failed, "tests::adds:passed tests::parses:failed", "", "src/lib.rs:17"},
		{"cut.txt", Errored, "tests::adds:passed tests::parses:passed", "2 of 3 tests finished", ""},
		{"stopped.txt", Failed, "tests::adds:failed", "1 of 10 tests ran", ""},
		{"pass.txt", Passed, "tests::adds:passed tests::parses:passed", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log, err := os.ReadFile("testdata/nextest/" + tc.name)
			if err != nil {
				t.Fatal(err)
			}
			if f := DetectFormat(log); f != FormatNextest {
				t.Fatalf("detected %q", f)
			}
			rep, err := ParseAuto(bytes.NewReader(log))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range rep.Cases {
				got = append(got, c.Name+":"+string(c.Status))
			}
			if rep.Status != tc.status || strings.Join(got, " ") != tc.cases {
				t.Errorf("status %s, cases %s; want %s, %s", rep.Status, got, tc.status, tc.cases)
			}
			if how := cutShortHow(rep); (tc.cutShort == "") != (how == "") || !strings.Contains(how, tc.cutShort) {
				t.Errorf("cut short %q, want %q", how, tc.cutShort)
			}
			if f := rep.Failures(); tc.where != "" && (len(f) == 0 || fmt.Sprintf("%s:%d", f[0].File, f[0].Line) != tc.where) {
				t.Errorf("failures %+v, want the first at %s", f, tc.where)
			}
			if rep.CountMismatch {
				t.Errorf("count mismatch: %v", rep.Notes)
			}
		})
	}
}

func cutShortHow(r *Report) string {
	var how []string
	for _, c := range r.CutShort {
		how = append(how, c.How)
	}
	return strings.Join(how, "; ")
}
