package webui

import (
	"encoding/json"
	"testing"
)

// TestRepeatAndBisectOf: a test's tally (tests.repeat), a run's
// (verdict.repeat) and a bisect's steps are read from a kept answer; a
// build's steps (its commands) are no bisect, and input that is not an
// answer gives neither.
func TestRepeatAndBisectOf(t *testing.T) {
	for _, c := range []struct {
		raw            string
		repeat, bisect bool
	}{
		{`{"verdict":"FLAKY: …","tests":{"repeat":{"runs":6,"asked":6,"failed_runs":2,"tests":[{"test":"p TestX","failed":2,"failures":[{"kind":"failed","count":2,"first_run":3,"first_output":"o-1"}]}]}}}`, true, false},
		{`{"verdict":{"status":"crash","repeat":{"runs":6,"asked":6,"failed_runs":2}}}`, true, false},
		{`{"verdict":"FIRST BAD COMMIT: …","status":"found","revisions":5,"first_bad":{"hash":"abc"},"steps":[{"step":1,"revision":"abc","mark":"bad","verdict":"TESTS FAILED","output_id":"o-2"}]}`, false, true},
		{`{"verdict":"BUILD FAILED","status":"failed","steps":[{"name":"build","command":"go build ./..."}]}`, false, false},
		{`{"tests":{"repeat":"not a tally"}}`, false, false},
		{`[1,2]`, false, false},
		{``, false, false},
	} {
		t.Run(c.raw, func(t *testing.T) {
			rep, bis := repeatAndBisect(json.RawMessage(c.raw))
			if (rep != nil) != c.repeat || (bis != nil) != c.bisect {
				t.Errorf("repeat %+v bisect %+v", rep, bis)
			}
		})
	}
	rep, _ := repeatAndBisect(json.RawMessage(`{"tests":{"repeat":{"runs":6,"tests":[{"test":"p TestX","failures":[{"first_run":3,"first_output":"o-1"}]}]}}}`))
	if g := rep.Tests[0].Failures[0]; g.FirstRun != 3 || g.FirstOutput != "o-1" {
		t.Errorf("group %+v", g)
	}
}
