package coverage

import (
	"strings"
	"testing"
)

// A covered range is split at function bounds; its lines outside every
// function (blanks between them) are left out, and a file whose functions
// are not known keeps its ranges under no name.
func TestSplitByFunc(t *testing.T) {
	funcs := []Func{{"b", 10, 14}, {"a", 1, 5}}
	pf := splitByFunc("x.c", []Range{{3, 12}, {14, 14}}, funcs)
	var b strings.Builder
	(&TestPath{Test: "t", Files: []PathFile{pf, splitByFunc("y.c", []Range{{7, 9}}, nil)}}).WriteText(&b, 10)
	if want := "the failing test t ran: x.c: a 3-5, b 10-12,14; y.c: 7-9\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

// The text shows at most maxFuncs functions, the rest counted, then where
// the test failed and how many others did.
func TestPathTextBounded(t *testing.T) {
	p := &TestPath{Test: "t", At: "x.c:4", OtherFailed: 2, Files: []PathFile{
		{Path: "x.c", Funcs: []PathFunc{{"a", []Range{{1, 2}}}, {"b", []Range{{4, 4}}}}},
		{Path: "y.c", Funcs: []PathFunc{{"c", []Range{{1, 1}}}}},
	}}
	var b strings.Builder
	p.WriteText(&b, 1)
	if want := "the failing test t ran: x.c: a 1-2 … and 2 more functions → failed at x.c:4 (2 other failed tests not rerun)\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}
