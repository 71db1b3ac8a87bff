package logfilter

import (
	"os"
	"strings"
	"testing"
)

// filterText runs log through a Filter at level and returns what it kept.
func filterText(t *testing.T, level Level, log string) (string, Summary) {
	t.Helper()
	var out strings.Builder
	f := New(level, &out)
	if _, err := f.Write([]byte(log)); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return out.String(), f.Summary()
}

// keptLines reports which of lines the filtered text holds as whole lines.
func keptLines(got string) map[string]bool {
	kept := map[string]bool{}
	for _, l := range strings.Split(got, "\n") {
		kept[l] = true
	}
	return kept
}

// perlMakeTest is `make test` of libperl-destruct-level-perl with a
// failing is(), its stdout and stderr merged.
const perlMakeTest = `PERL_DL_NONLAZY=1 "/usr/bin/perl" "-MExtUtils::Command::MM" "-MTest::Harness" "-e" "undef *Test::Harness::Switches; test_harness(0, 'blib/lib', 'blib/arch')" t/*.t
t/01level0.t .. 
1..3
ok 1 - use Perl::Destruct::Level;
# level is read from the environment
not ok 2 - injected
#   Failed test 'injected'
#   at t/01level0.t line 6.
#          got: '1'
#     expected: '2'
ok 3 - level is 0
# Looks like you failed 1 test of 3.
Dubious, test returned 1 (wstat 256, 0x100)
Failed 1/3 subtests 
`

// TestTestMoreDiagnosticsKept: Test::More's comments on a failed assertion
// ("#   Failed test 'injected'", "#   at t/01level0.t line 6.", what it
// got and expected) say which assertion failed and where: kept at the
// default level, after a "not ok" line (prove -v, a raw TAP stream) or on
// their own (prove prints the test's stderr apart from its results, and
// no "not ok" line without -v). Comments that say nothing ("# Subtest:",
// a TODO test's expected failure, a passing test's notes) are dropped.
func TestTestMoreDiagnosticsKept(t *testing.T) {
	read := func(name string) string {
		raw, err := os.ReadFile("../testreport/testdata/frameworks/tap/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return string(raw)
	}
	for _, tt := range []struct {
		name       string
		log        string
		keep, drop []string
	}{
		{"make test", perlMakeTest,
			[]string{"not ok 2 - injected", "#   Failed test 'injected'", "#   at t/01level0.t line 6.", "#          got: '1'", "#     expected: '2'", "# Looks like you failed 1 test of 3."},
			[]string{"# level is read from the environment", "ok 3 - level is 0"}},
		{"prove", read("tap-prove-fail.log"),
			[]string{"#   Failed test 'two and two'", "#   at t/02-fail.t line 4.", "#     expected: '5'",
				"    #   Failed test 'inner two'", "    #   at t/02-fail.t line 16.", "#   Failed test 'nested'", "#   at t/02-fail.t line 17."},
			nil},
		{"raw TAP", read("tap-raw-fail.log"),
			[]string{"not ok 2 - two and two", "#   Failed test 'two and two'", "#   at t/02-fail.t line 4.", "#          got: '4'",
				"    #   at t/02-fail.t line 16.", "#   at t/02-fail.t line 17."},
			[]string{"#   Failed (TODO) test 'future feature'", "#   at t/02-fail.t line 11.", "# Subtest: nested"}},
		{"passing", "1..2\nok 1 - parses\n# parsed 12 documents\nok 2 - prints\n# all done\n",
			nil, []string{"# parsed 12 documents", "# all done"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, sum := filterText(t, Standard, tt.log)
			kept := keptLines(got)
			for _, l := range tt.keep {
				if !kept[l] {
					t.Errorf("dropped %q:\n%s", l, got)
				}
			}
			for _, l := range tt.drop {
				if kept[l] {
					t.Errorf("kept %q, which says nothing:\n%s", l, got)
				}
			}
			for _, d := range sum.Diagnostics {
				if strings.HasPrefix(strings.TrimSpace(d.Message), "#") || strings.HasPrefix(d.Message, "not ok") {
					t.Errorf("diagnostic %+v: TAP's lines are kept, not counted", d)
				}
			}
		})
	}
}

// TestTestMoreDiagnosticsByLevel: the "Failed test" line is an alarm, kept
// at every level; the comments after it are its context, kept from
// Standard on, and no more than a diagnostic's context.
func TestTestMoreDiagnosticsByLevel(t *testing.T) {
	log := "#   Failed test 'big'\n#   at t/big.t line 9.\n" + strings.Repeat("#     line of a deep structure\n", 20) + "ok 2 - next\n"
	got, sum := filterText(t, Minimal, log)
	if !strings.Contains(got, "#   Failed test 'big'\n") || strings.Contains(got, "line 9") {
		t.Errorf("minimal: want the failure line alone:\n%s", got)
	}
	if sum.Alarms != 1 || sum.Alarm == nil || sum.Alarm.Word != "Failed test" {
		t.Errorf("alarms %d, %+v; want the failure line", sum.Alarms, sum.Alarm)
	}
	got, _ = filterText(t, Standard, log)
	if !strings.Contains(got, "#   at t/big.t line 9.\n") || strings.Count(got, "deep structure") != maxContext-1 || !strings.Contains(got, "    …\n") {
		t.Errorf("standard: want the location, %d lines of context, then an ellipsis:\n%s", maxContext, got)
	}
	if got, _ = filterText(t, Verbose, log); strings.Count(got, "deep structure") != 20 {
		t.Errorf("verbose: want every line:\n%s", got)
	}
}
