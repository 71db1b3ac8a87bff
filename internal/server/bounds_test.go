package server

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/catalog"
)

// Every answer is bounded whatever the arguments, through the real server:
// a string argument over the limit is refused before any work, an error
// quoting a long argument quotes its start, and an answer echoing large
// arguments is cut, text and structured content alike, saying what it cut.
func TestAnswersAreBounded(t *testing.T) {
	srv, _ := New(newServices(t, nil), Options{})
	cs := connect(t, srv, nil)

	huge := strings.Repeat("a", catalog.MaxStringBytes+1)
	res, text := callText(t, cs, "run", map[string]any{"program": huge})
	if !res.IsError || !strings.Contains(text, "program: a string of") || len(text) > catalog.MaxErrorBytes+200 {
		t.Errorf("a %d-byte argument: error %v, %d bytes of text: %.200s", len(huge), res.IsError, len(text), text)
	}
	res, text = callText(t, cs, "run", map[string]any{"program": "true", "args": []any{"x", huge}})
	if !res.IsError || !strings.Contains(text, "args[1]: a string of") {
		t.Errorf("a long string inside a list: %.200s", text)
	}

	long := "/no/such/" + strings.Repeat("d", 200<<10)
	res, text = callText(t, cs, "run", map[string]any{"program": long})
	if !res.IsError || len(text) > catalog.MaxErrorBytes+200 || !strings.Contains(text, "[cut:") {
		t.Errorf("an error quoting a 200 KiB path: %d bytes: %.200s", len(text), text)
	}

	env := map[string]any{}
	for _, k := range []string{"A", "B", "C", "D", "E", "F", "G", "H", "I", "J"} {
		env["V_"+k] = strings.Repeat(k, 100<<10)
	}
	res, text = callText(t, cs, "session_set_defaults", map[string]any{"env": env})
	structured, _ := json.Marshal(res.StructuredContent)
	if res.IsError || len(text) > catalog.MaxTextBytes+300 || len(structured) > catalog.DefaultMaxStructuredBytes {
		t.Fatalf("an answer echoing 1 MB of env: error %v, %d text bytes, %d structured bytes", res.IsError, len(text), len(structured))
	}
	if !strings.Contains(string(structured), `"_cut"`) || !strings.Contains(text, "the answer was cut") {
		t.Errorf("the cut answer does not say so: %.300s / %.300s", text[len(text)-200:], structured)
	}
}
