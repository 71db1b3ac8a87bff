package logfilter

import (
	"bytes"

	"github.com/triage-dev/triage/internal/gotestjson"
)

var litAction = []byte(`"Action":"`)

// goJSONText returns the text a `go test -json` line carries: the Output of
// an "output" or "build-output" event (Go 1.24+ reports the compiler's
// messages as the latter) without its newline, or ok=true with nil text for
// the other events (start, run, pass, fail, build-fail), whose meaning the
// output events already spell out ("--- FAIL: TestX", "FAIL pkg"). ok is
// false when line is not a test2json event.
func goJSONText(line []byte, ev *gotestjson.Event) (text []byte, ok bool) {
	if len(line) < 2 || line[0] != '{' || line[1] != '"' || !bytes.Contains(line, litAction) {
		return nil, false
	}
	if err := gotestjson.DecodeOutput(line, ev); err != nil {
		return nil, false
	}
	if ev.Action != "output" && ev.Action != "build-output" {
		return nil, true
	}
	return []byte(trimNewline(ev.Output)), true
}

func trimNewline(s string) string {
	for len(s) > 0 && (s[len(s)-1] == '\n' || s[len(s)-1] == '\r') {
		s = s[:len(s)-1]
	}
	return s
}
