package memcheck

import (
	"bytes"
	"fmt"
	"io/fs"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/spawn"
)

// TestConclude: the outcome is Clean only when valgrind finished the run
// and reported nothing, with no sign of errors elsewhere; every other
// run without an error is Incomplete, with the reason.
func TestConclude(t *testing.T) {
	clean, found := readXML(t, "clean"), readXML(t, "overflow_read")
	exit0 := &spawn.Result{Exited: true}
	errExit := &spawn.Result{Exited: true, ExitCode: ErrorExitCode}
	cutAt := bytes.Index(clean, []byte("<status>\n  <state>FINISHED"))
	for _, c := range []struct {
		name    string
		xml     []byte
		size    int64
		readErr error
		p       *spawn.Result
		want    Outcome
		reason  string
	}{
		{"finished, nothing reported", clean, 0, nil, exit0, Clean, ""},
		{"timed out", clean, 0, nil, &spawn.Result{Signaled: true, SignalName: "SIGTERM", TimedOut: true, Timeout: 5 * time.Second}, Incomplete, "timed out after 5s before valgrind finished the program"},
		{"the call's deadline", clean, 0, nil, &spawn.Result{TimedOut: true}, Incomplete, "timed out (the call's deadline)"},
		{"cancelled", clean, 0, nil, &spawn.Result{Cancelled: true}, Incomplete, "cancelled before valgrind finished"},
		{"killed before FINISHED", clean[:cutAt], 0, nil, &spawn.Result{Signaled: true, SignalName: "SIGKILL"}, Incomplete, "valgrind's XML is cut: it ends at byte"},
		{"error status, no error", clean, 0, nil, errExit, Incomplete, "valgrind exited with its error status 223, yet its XML holds no error"},
		{"no XML", nil, 0, fs.ErrNotExist, &spawn.Result{Exited: true, ExitCode: 1}, Incomplete, "valgrind wrote no XML (valgrind exited with status 1)"},
		{"not valgrind's", []byte("<html/>"), 0, nil, exit0, Incomplete, "not valgrind memcheck's XML: its root is <html>"},
		{"too long to read whole", clean[:cutAt], MaxXMLBytes + 1, nil, exit0, Incomplete, fmt.Sprintf("valgrind's XML is %d bytes: its first %d hold no error", MaxXMLBytes+1, MaxXMLBytes)},
		{"an error, then the time limit", found, 0, nil, &spawn.Result{TimedOut: true}, Found, ""},
		{"an error", found, 0, nil, errExit, Found, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := &Result{Process: c.p, XML: c.xml, XMLSize: max(c.size, int64(len(c.xml))), ErrorExit: c.p.Exited && c.p.ExitCode == ErrorExitCode}
			r.conclude(c.readErr, recordedDir)
			if r.Outcome != c.want || !strings.HasPrefix(r.Reason, c.reason) {
				t.Errorf("outcome %v, reason %q; want %v, %q", r.Outcome, r.Reason, c.want, c.reason)
			}
			if c.want == Incomplete && !strings.HasPrefix(r.Summary(), "memcheck: no verdict: "+c.reason) {
				t.Errorf("summary %q", r.Summary())
			}
		})
	}
}

// TestConcludeLeaksLeftOut: without leaks asked for, a definite leak in
// the XML is no error.
func TestConcludeLeaksLeftOut(t *testing.T) {
	r := &Result{Process: &spawn.Result{Exited: true}, XML: readXML(t, "leak")}
	r.conclude(nil, recordedDir)
	if r.Outcome != Clean || r.Seen != 0 {
		t.Errorf("outcome %v, %d seen", r.Outcome, r.Seen)
	}
	r = &Result{Process: &spawn.Result{Exited: true, ExitCode: ErrorExitCode}, XML: readXML(t, "leak"), Leaks: true}
	r.conclude(nil, recordedDir)
	if r.Outcome != Found || r.First().Leak == nil || *r.First().Leak != (Leak{Bytes: 64, Blocks: 1}) {
		t.Errorf("outcome %v, %+v", r.Outcome, r.First())
	}
}

// TestResultText: a result with several errors names the first whole and
// the next ones in a line each, bounded; a program killed by a signal is
// said in a clean result's line.
func TestResultText(t *testing.T) {
	lg, err := Parse(readXML(t, "use_after_free"), recordedDir, true)
	if err != nil {
		t.Fatal(err)
	}
	first := lg.Errors[0]
	r := &Result{Outcome: Found, Seen: 12, Errors: []Report{first, first, first, first, first, first, first, first}}
	if s := r.Summary(); !strings.HasPrefix(s, first.Summary()) || !strings.HasSuffix(s, "; 11 more errors") {
		t.Errorf("summary %q", s)
	}
	d := r.Detail()
	if !strings.HasPrefix(d, first.Detail()) || strings.Count(d, "\n  then use after free") != detailOthers ||
		!strings.HasSuffix(d, "  … and 6 more errors\n") {
		t.Errorf("detail:\n%s", d)
	}
	if !strings.Contains(d, "  → by drop (use_after_free.c:21)\n") {
		t.Errorf("detail does not mark the free's project frame:\n%s", d)
	}
	c := &Result{Outcome: Clean, Leaks: true, Process: &spawn.Result{Signaled: true, Signal: syscall.SIGABRT, SignalName: "SIGABRT"}}
	if s := c.Summary(); s != "memcheck: no memory error seen in 1 run under valgrind; the program died of SIGABRT" {
		t.Errorf("summary %q", s)
	}
}
