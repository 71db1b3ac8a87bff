package toolchain

import (
	"reflect"
	"testing"
)

// TestRepeatHintFilters: the repeat hint selects the failed tests in the
// toolchain's filter language (anchored regular expressions for go and
// ctest, names for cargo and meson, none for make), keeps the call's
// configuration and checker, and names no call without a failed test.
func TestRepeatHintFilters(t *testing.T) {
	call := TestCall{ProjectDir: "/p", Options: Options{Configuration: "release", Check: "thread"}}
	for tc, want := range map[string]any{"go": []string{"^TestX$", `^Test\.Y$`}, "cmake": []string{"^TestX$", `^Test\.Y$`},
		"cargo": []string{"TestX", "Test.Y"}, "make": nil} {
		h, ok := RepeatHint(tc, call, []string{"TestX", "Test.Y"})
		if !ok || h.Tool != "test" || h.Args["repeat"] != repeatHintRuns || h.Args["configuration"] != "release" || h.Args["check"] != "thread" {
			t.Errorf("%s: %+v", tc, h)
		}
		if got, in := h.Args["run"]; want == nil && in || want != nil && !reflect.DeepEqual(got, want) {
			t.Errorf("%s: run %v, want %v", tc, got, want)
		}
	}
	if _, ok := RepeatHint("go", call, nil); ok {
		t.Error("a hint without a failed test")
	}
}
