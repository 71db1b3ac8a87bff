package shellcmd

import "testing"

func TestRewrite(t *testing.T) {
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
		if got := Rewrite(tt.in); got != tt.want {
			t.Errorf("Rewrite(%s)\n got %s\nwant %s", tt.in, got, tt.want)
		}
	}
}

func TestCommand(t *testing.T) {
	for _, tt := range []struct {
		tool, args, want string
		ok               bool
	}{
		{"dump_open", `{"core":"/tmp/a b/core","program":"./segv"}`, `triage dump_open --core '/tmp/a b/core' --program ./segv`, true},
		{"debug_stack", ``, `triage debug_stack`, true},
		{"run", `{"a":1} trailing`, ``, false},
		{"run", `[1]`, ``, false},
	} {
		got, ok := Command(tt.tool, []byte(tt.args))
		if ok != tt.ok || ok && got != tt.want {
			t.Errorf("Command(%s, %s) = %q, %v; want %q, %v", tt.tool, tt.args, got, ok, tt.want, tt.ok)
		}
	}
}
