package crashers_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/testutil/crashers"
)

// TestBuildAll builds every program and checks each one misbehaves the
// way its documentation says, so other packages can rely on them.
func TestBuildAll(t *testing.T) {
	want := map[string]struct {
		signal string
		exit   int
		args   []string
		output string
	}{
		"segv":          {signal: "SIGSEGV"},
		"nullderef":     {signal: "SIGSEGV", output: "summing the list"},
		"segvnodebug":   {signal: "SIGSEGV"},
		"segvstripped":  {signal: "SIGSEGV"},
		"abort":         {signal: "SIGABRT"},
		"fpe":           {signal: "SIGFPE"},
		"stackoverflow": {signal: "SIGSEGV"},
		"hashgrow":      {signal: "SIGSEGV", output: "filling the table"},
		"doublefree":    {signal: "SIGABRT", output: "double free"},
		"heapoverflow":  {signal: "SIGABRT", output: "malloc(): corrupted top size"},
		"useafterfree":  {signal: "SIGSEGV"},
		"fakecorrupt":   {signal: "SIGSEGV", output: "free(): invalid pointer"},
		"assert":        {signal: "SIGABRT", output: "Assertion `x == 2' failed."},
		"stacksmash":    {signal: "SIGABRT", output: "*** stack smashing detected ***"},
		"asan":          {exit: 1, output: "heap-buffer-overflow"},
		"ubsan":         {exit: 1, output: "signed integer overflow"},
		"ubsanrecover":  {exit: 0, output: "signed integer overflow"},
		"oobread":       {exit: 0, output: "done"},
		"leakplain":     {exit: 0},
		"uninit":        {exit: 0, output: "done"},
		"cxxthrow":      {signal: "SIGABRT", output: "terminate called after throwing"},
		"gopanic":       {exit: 2, output: "panic: runtime error: index out of range"},
		"gonilmap":      {exit: 2, output: "assignment to entry in nil map"},
		"godeadlock":    {exit: 2, output: "all goroutines are asleep"},
		"rustpanic":     {exit: 101, output: "panicked at"},
		"buildkill":     {signal: "SIGKILL", output: "** BUILD SUCCEEDED **"},
		"exit0panic":    {exit: 0, output: "panic: runtime error"},
		"sleeper":       {exit: 0, args: []string{"0"}, output: "ready"},
		"bigoutput":     {exit: 0, args: []string{"1000"}, output: "abcdefghij"},
		"exitwith":      {exit: 3, args: []string{"3", "bye"}, output: "bye"},
		"leak":          {exit: 1, output: "ERROR: LeakSanitizer: detected memory leaks"},
		"tsan":          {exit: 66, output: "WARNING: ThreadSanitizer: data race"},
		"gorace":        {exit: 66, output: "WARNING: DATA RACE"},
	}
	for _, name := range crashers.Names() {
		w, ok := want[name]
		if !ok {
			continue // trap varies by arch (see TestTrap); sigtermfork is exercised by spawn
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := crashers.Build(t, name)
			var out bytes.Buffer
			res, err := spawn.Run(context.Background(), spawn.Spec{
				Argv: append([]string{path}, w.args...), Combined: &out, Timeout: time.Minute,
			})
			if err != nil {
				t.Fatal(err)
			}
			if res.SignalName != w.signal || (w.signal == "" && res.ExitCode != w.exit) {
				t.Errorf("got %s, want signal %q exit %d; output:\n%s", res, w.signal, w.exit, out.String())
			}
			if !bytes.Contains(out.Bytes(), []byte(w.output)) {
				t.Errorf("output lacks %q:\n%s", w.output, out.String())
			}
		})
	}
}

func TestBuildCaches(t *testing.T) {
	a := crashers.Build(t, "exitwith")
	b := crashers.Build(t, "exitwith")
	if a != b {
		t.Fatalf("second Build gave %s, first %s", b, a)
	}
}

func TestTrap(t *testing.T) {
	path := crashers.Build(t, "trap")
	res, err := spawn.Run(context.Background(), spawn.Spec{Argv: []string{path}, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if res.SignalName != "SIGILL" && res.SignalName != "SIGTRAP" {
		t.Fatalf("got %s, want SIGILL (x86) or SIGTRAP (arm64)", res)
	}
}
