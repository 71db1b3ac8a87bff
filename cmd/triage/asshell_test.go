package main

import (
	"bytes"
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestAsShellCommands(t *testing.T) {
	tests := []struct{ in, want string }{
		{`next: dump_open {"core":"/tmp/a b/core.1","program":"./segv"}`, `next: triage dump_open --core '/tmp/a b/core.1' --program ./segv`},
		{`more: output_get {"limit":200,"offset":0,"output_id":"o-1"} or output_search {"output_id":"o-1","pattern":"error|fatal"}`,
			`more: triage output_get --limit 200 --offset 0 --output_id o-1 or triage output_search --output_id o-1 --pattern 'error|fatal'`},
		{`next: test {"filter":"TestX","repeat":true,"args":["-v","-run","it's"]}`, `next: triage test --filter TestX --repeat true --args -v --args -run --args 'it'\''s'`},
		{`set it: session_set_defaults {"env":{"A":"1"}} (or pass it)`, `set it: triage session_set_defaults --env '{"A":"1"}' (or pass it)`},
		{`next: debug_continue {"session_id":"dbg-1"}, then debug_stack {}`, `next: triage debug_continue --session_id dbg-1, then triage debug_stack`},
		// Not a call: prose, a malformed object, a key that is no argument's name.
		{`a map {"a" is not closed`, `a map {"a" is not closed`},
		{`see run {"Not An Arg": 1}`, `see run {"Not An Arg": 1}`},
		{`struct{} and map[string]any{"a": 1}`, `struct{} and map[string]any{"a": 1}`},
	}
	for _, tt := range tests {
		if got := asShellCommands(tt.in); got != tt.want {
			t.Errorf("asShellCommands(%s)\n got %s\nwant %s", tt.in, got, tt.want)
		}
	}
}

// The CLI's `more:` line is a command a person pastes: run as printed, it
// pages the output the first call stored.
func TestSuggestedCommandRunsAsPrinted(t *testing.T) {
	t.Setenv("TRIAGE_CONFIG", "")
	store := filepath.Join(t.TempDir(), "triage.db")
	cli := func(args ...string) (int, string) {
		var out bytes.Buffer
		code := run(context.Background(), append(args, "--store", store, "--log-level", "error"), strings.NewReader(""), &out, &out)
		return code, out.String()
	}
	code, out := cli("run", "--program", "seq", "--args", "1", "--args", "3000")
	more := regexp.MustCompile(`(?m)^more: triage (output_get .*?) or triage`).FindStringSubmatch(out)
	if code != 0 || more == nil {
		t.Fatalf("run seq: exit %d, no `more: triage output_get …` line:\n%s", code, out)
	}
	args := shellWords(more[1])
	code, page := cli(args...)
	if code != 0 || !strings.Contains(page, "\n1\n2\n3\n") {
		t.Fatalf("triage %s: exit %d:\n%.600s", more[1], code, page)
	}
}
