package testreport

import (
	"testing"
	"time"
)

// TestCTestSanitizerInCxxMethod: a test program whose AddressSanitizer
// report starts in a C++ const method, a && method or an operator<< is
// located at that frame, not at main's call of it (ctest 3.25
// --output-on-failure, g++ 12 -fsanitize=address; testdata/README).
func TestCTestSanitizerInCxxMethod(t *testing.T) {
	rep := parseFile(t, FormatCTest, "testdata/ctest-asan-cxx.log")
	want := []Case{
		{Name: "as_int", Line: 14, Message: "AddressSanitizer: heap-buffer-overflow in ns::klass::as_int(int) const at /src/ctq/lib.cpp:14"},
		{Name: "shift", Line: 36, Message: "AddressSanitizer: heap-buffer-overflow in operator<<(std::ostream&, X const&) at /src/ctq/lib.cpp:36"},
		{Name: "rref", Line: 17, Message: "AddressSanitizer: heap-buffer-overflow in ns::klass::as_rref(int) && at /src/ctq/lib.cpp:17"},
	}
	if len(rep.Cases) != len(want) {
		t.Fatalf("%d cases, want %d: %+v", len(rep.Cases), len(want), rep.Cases)
	}
	for i, c := range rep.Cases {
		w := want[i]
		if c.Name != w.Name || c.Status != Crashed || c.File != "/src/ctq/lib.cpp" || c.Line != w.Line || c.Message != w.Message {
			t.Errorf("case %d: %s %s at %s:%d %q\nwant %s crashed at /src/ctq/lib.cpp:%d %q", i, c.Name, c.Status, c.File, c.Line, c.Message, w.Name, w.Line, w.Message)
		}
	}
}

// TestCTestTimeout: a test CTest stopped at its TIMEOUT is errored, of kind
// timeout, and says after how long; the run failed, and is not cut short
// (ctest 3.25, TIMEOUT 1 on a program sleeping 30 s; testdata/README).
func TestCTestTimeout(t *testing.T) {
	rep := parseFile(t, FormatCTest, "testdata/ctest-timeout.log")
	if len(rep.Cases) != 2 {
		t.Fatalf("cases %+v, want 2", rep.Cases)
	}
	if c := rep.Cases[0]; c.Name != "quick" || c.Status != Passed || c.Kind != "" {
		t.Errorf("quick: %+v", c)
	}
	c := rep.Cases[1]
	if c.Name != "slow" || c.Status != Errored || c.Kind != KindTimeout || c.Message != "timed out after 1.07 s" || c.Duration != 1070*time.Millisecond {
		t.Errorf("slow: %+v, want errored, kind %q, %q", c, KindTimeout, "timed out after 1.07 s")
	}
	if got := c.StatusText(); got != "errored: timeout" {
		t.Errorf("status text %q", got)
	}
	if rep.Status != Errored || rep.Totals.Errored != 1 || rep.Totals.Passed != 1 || len(rep.CutShort) != 0 {
		t.Errorf("run %s, totals %+v, cut short %v", rep.Status, rep.Totals, rep.CutShort)
	}
}
