package pipeline

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/logfilter"
	"github.com/triage-dev/triage/internal/testreport"
	"github.com/triage-dev/triage/internal/testutil/nativeprojects"
	"github.com/triage-dev/triage/internal/toolchain"
)

// mesonHang is a meson project with a passing test and one whose program
// blocks forever, named apart from its program (as a TAP script's title
// would be), with a timeout of 1 s that meson's timeout multiplier makes
// shorter still: meson itself ends it, well within triage's own limit.
var mesonHang = map[string]string{
	"meson.build": "project('hangs', 'c')\n" +
		"test('passes', executable('ok', 'ok.c'))\n" +
		"test('Resolve unknown current user', executable('blocks', 'blocks.c'), timeout: 1)\n",
	"ok.c": "int main(void) { return 0; }\n",
	"blocks.c": "#include <stdio.h>\n#include <unistd.h>\n" +
		"int main(void) {\n  puts(\"waiting for the lookup\");\n  fflush(stdout);\n  for (;;)\n    pause();\n}\n",
}

// TestMesonOwnTimeout: a test that meson test stops at its own time limit
// (its result TIMEOUT, the program killed by SIGTERM) is a timeout, not a
// failed assertion: the case is errored, of Kind timeout, and the verdict
// starts "TIMED OUT", naming the test, though triage's own limit was far
// off and the run ended by itself.
func TestMesonOwnTimeout(t *testing.T) {
	nativeprojects.Need(t, "meson", "ninja", "cc")
	dir := nativeprojects.Write(t, mesonHang)
	steps, err := toolchain.TestPlan(toolchain.Meson, dir, toolchain.Options{Args: []string{"--timeout-multiplier", "0.5"}})
	if err != nil {
		t.Fatal(err)
	}
	var raw syncBuilder
	res, err := Run(context.Background(), Request{Kind: KindTest, Steps: steps, Level: logfilter.Standard,
		ProjectDir: dir, Raw: &raw, Timeout: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("verdict: %s", res.Line)
	const want = "TIMED OUT (the runner's own limit) in Resolve unknown current user: timed out after "
	if res.Status != Failed || !strings.HasPrefix(res.Line, want) || !strings.HasSuffix(res.Line, "; 1 of 2 failed") {
		t.Fatalf("%s %q, want failed %q…\nraw log:\n%s", res.Status, res.Line, want, tail(raw.String()))
	}
	if res.Report == nil || res.Report.Format != testreport.FormatMeson {
		t.Fatalf("report %+v, want meson's", res.Report)
	}
	for _, c := range res.Report.Cases {
		if c.Name != "Resolve unknown current user" {
			continue
		}
		if c.Status != testreport.Errored || c.Kind != testreport.KindTimeout || !strings.HasPrefix(c.Message, "timed out after 0.") {
			t.Errorf("case %+v, want errored, of kind timeout, timed out after half a second", c)
		}
		return
	}
	t.Errorf("no case of the test that hung: %+v", res.Report.Cases)
}
