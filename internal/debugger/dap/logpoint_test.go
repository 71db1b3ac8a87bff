package dap

import "testing"

func TestRenderHit(t *testing.T) {
	for _, tt := range []struct{ rendered, want string }{
		{"a=\x1f0\x1f b=\x1f7\x1f\n", "a=0 b=7"},
		{"a=\x1f0\x1f b=\x1f\x1f\n", "a=0 b=<error: b has no value here (the adapter gave none: an unknown name, or an aggregate)>"},
		{"a=\x1f{eval err: could not find symbol value for a}\x1f b=\x1f1\x1f", "a={eval err: could not find symbol value for a} b=1"},
	} {
		if got := renderHit("a={a} b={b}", tt.rendered); got != tt.want {
			t.Errorf("renderHit(%q) = %q, want %q", tt.rendered, got, tt.want)
		}
	}
}
