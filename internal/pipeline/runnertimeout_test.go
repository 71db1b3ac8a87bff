package pipeline

import (
	"os"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/testreport"
)

// mesonTimeoutLog is `meson test --print-errorlogs` of a run in which
// meson stopped one test at its timeout (meson 1.0.1, recorded).
const mesonTimeoutLog = `ninja: Entering directory ` + "`" + `/tmp/mt/build'
ninja: no work to do.
1/2 passes                       OK              0.01s
Resolve unknown current user time out (After 1.0 seconds)
2/2 Resolve unknown current user TIMEOUT         1.02s   killed by signal 15 SIGTERM
>>> MALLOC_PERTURB_=167 /tmp/mt/build/blocks
――――――――――――――――――――――――――――――――――――― ✀  ―――――――――――――――――――――――――――――――――――――
waiting for the lookup
――――――――――――――――――――――――――――――――――――――――――――――――――――――――――――――――――――――――――――――


Summary of Failures:

2/2 Resolve unknown current user TIMEOUT         1.02s   killed by signal 15 SIGTERM

Ok:                 1   
Expected Fail:      0   
Fail:               0   
Unexpected Pass:    0   
Skipped:            0   
Timeout:            1   

Full log written to /tmp/mt/build/meson-logs/testlog.txt
`

// TestRunnerTimeoutVerdict: a log in which the test runner stopped a test
// at its own time limit (meson's TIMEOUT, CTest's ***Timeout) is judged
// TIMED OUT, naming the test and after how long, whether the format is
// detected or named; a failed assertion beside it does not hide it.
func TestRunnerTimeoutVerdict(t *testing.T) {
	ctest, err := os.ReadFile("../testreport/testdata/ctest-timeout.log")
	if err != nil {
		t.Fatal(err)
	}
	withFailure := strings.Replace(mesonTimeoutLog, "1/2 passes                       OK              0.01s",
		"1/2 passes                       FAIL            0.01s   exit status 1", 1)
	withFailure = strings.Replace(withFailure, "Ok:                 1   \n", "Ok:                 0   \n", 1)
	withFailure = strings.Replace(withFailure, "Fail:               0   \n", "Fail:               1   \n", 1)
	for _, tt := range []struct {
		name, format, log, want string
	}{
		{"meson", "", mesonTimeoutLog,
			"TIMED OUT (the runner's own limit) in Resolve unknown current user: timed out after 1.02 s (killed by signal 15 SIGTERM): waiting for the lookup; 1 of 2 failed"},
		{"meson named", testreport.FormatMeson, mesonTimeoutLog,
			"TIMED OUT (the runner's own limit) in Resolve unknown current user: timed out after 1.02 s (killed by signal 15 SIGTERM): waiting for the lookup; 1 of 2 failed"},
		{"meson with a failure", "", withFailure,
			"TIMED OUT (the runner's own limit) in Resolve unknown current user: timed out after 1.02 s (killed by signal 15 SIGTERM): waiting for the lookup; 2 of 2 failed"},
		{"ctest", "", string(ctest), "TIMED OUT (the runner's own limit) in slow: timed out after 1.07 s; 1 of 2 failed"},
		{"two timeouts", testreport.FormatCTest, strings.Replace(string(ctest), "   Passed    0.02 sec", "***Timeout   1.05 sec", 1),
			"TIMED OUT (the runner's own limit) in quick: timed out after 1.05 s (and 1 more timed out); 2 of 2 failed"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Analyze(strings.NewReader(tt.log), AnalyzeOptions{Format: tt.format})
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != Failed || res.Line != tt.want {
				t.Errorf("%s %q,\nwant failed %q", res.Status, res.Line, tt.want)
			}
		})
	}
}
