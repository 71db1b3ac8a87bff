package toolchain

import (
	"regexp"

	"github.com/triage-dev/triage/internal/verdict"
)

// repeatHintRuns is the repeat a failing test's hint suggests: enough
// runs that a test failing one run in five is caught (99%), few enough
// to cost little.
const repeatHintRuns = 20

// maxRepeatHintTests bounds the tests a repeat hint names.
const maxRepeatHintTests = 5

// RepeatHint is the next call after tests failed, under the toolchain tc
// that ran them: the same test call running only those tests (names as
// the report names them) repeatedly, which tells a flaky failure from a
// real one. ok is false when there is no test to name.
func RepeatHint(tc string, call TestCall, names []string) (verdict.Hint, bool) {
	if len(names) == 0 {
		return verdict.Hint{}, false
	}
	if len(names) > maxRepeatHintTests {
		names = names[:maxRepeatHintTests]
	}
	args := call.args()
	if c := call.Options.Configuration; c != "" {
		args["configuration"] = c
	}
	if c := call.Options.Check; c != "" {
		args["check"] = c
	}
	if run := repeatFilter(tc, names); run != nil {
		args["run"] = run
	}
	args["repeat"] = repeatHintRuns
	return verdict.Hint{Text: "flaky or real: run the failed tests 20 times", Tool: "test", Args: args}, true
}

// repeatFilter selects the named tests in the toolchain's filter
// language; nil for make, which has none.
func repeatFilter(tc string, names []string) []string {
	var run []string
	for _, n := range names {
		switch Toolchain(tc) {
		case Make, Autotools:
			return nil
		case Go, CMake:
			run = append(run, "^"+regexp.QuoteMeta(n)+"$") // regular expressions: go -run, ctest -R
		default:
			run = append(run, n) // cargo's substrings, meson's and swift's names
		}
	}
	return run
}
