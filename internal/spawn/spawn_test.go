package spawn_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/testutil/crashers"
)

func TestExitAndSignal(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		exited  bool
		code    int
		signal  syscall.Signal
		sigName string
	}{
		{name: "exitwith", args: []string{"0"}, exited: true, code: 0},
		{name: "exitwith", args: []string{"78"}, exited: true, code: 78},
		{name: "segv", code: -1, signal: syscall.SIGSEGV, sigName: "SIGSEGV"},
		{name: "abort", code: -1, signal: syscall.SIGABRT, sigName: "SIGABRT"},
		{name: "fpe", code: -1, signal: syscall.SIGFPE, sigName: "SIGFPE"},
		{name: "buildkill", code: -1, signal: syscall.SIGKILL, sigName: "SIGKILL"},
	}
	for _, tt := range tests {
		t.Run(tt.name+strings.Join(tt.args, "_"), func(t *testing.T) {
			path := crashers.Build(t, tt.name)
			res, err := spawn.Run(context.Background(), spawn.Spec{Argv: append([]string{path}, tt.args...)})
			if err != nil {
				t.Fatal(err)
			}
			if res.Exited != tt.exited || res.ExitCode != tt.code || res.Signaled == tt.exited ||
				res.Signal != tt.signal || res.SignalName != tt.sigName {
				t.Errorf("got %+v", res)
			}
			if res.Pid <= 0 || res.Duration <= 0 || res.Started.IsZero() || res.PeakRSS < 0 {
				t.Errorf("missing bookkeeping: %+v", res)
			}
			if res.Success() != (tt.exited && tt.code == 0) {
				t.Errorf("Success() = %v for %s", res.Success(), res)
			}
		})
	}
}

func TestStartErrors(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain.txt")
	if err := os.WriteFile(plain, []byte("not a program"), 0o644); err != nil {
		t.Fatal(err)
	}
	garbage := filepath.Join(dir, "garbage")
	if err := os.WriteFile(garbage, []byte("\x7fELF but not really"), 0o755); err != nil {
		t.Fatal(err)
	}
	badInterp := filepath.Join(dir, "badinterp")
	if err := os.WriteFile(badInterp, []byte("#!/nonexistent/interpreter\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		spec spawn.Spec
		kind spawn.StartErrorKind
		msg  string // a fragment the message must carry
	}{
		{"nil argv", spawn.Spec{}, spawn.KindEmptyArgv, "argv is empty"},
		{"empty argv0", spawn.Spec{Argv: []string{""}}, spawn.KindEmptyArgv, "argv is empty"},
		{"missing in PATH", spawn.Spec{Argv: []string{"no-such-program-triage"}}, spawn.KindNotFound, "PATH"},
		{"missing path", spawn.Spec{Argv: []string{filepath.Join(dir, "nope")}}, spawn.KindNotFound, "does not exist"},
		{"not executable", spawn.Spec{Argv: []string{plain}}, spawn.KindNotExecutable, "chmod +x"},
		{"bad format", spawn.Spec{Argv: []string{garbage}}, spawn.KindNotExecutable, "not an executable for this machine"},
		{"missing interpreter", spawn.Spec{Argv: []string{badInterp}}, spawn.KindNotFound, "interpreter"},
		{"directory", spawn.Spec{Argv: []string{dir}}, spawn.KindIsDirectory, "is a directory"},
		{"missing cwd", spawn.Spec{Argv: []string{"true"}, Dir: filepath.Join(dir, "gone")}, spawn.KindBadDir, "working directory"},
		{"cwd is a file", spawn.Spec{Argv: []string{"true"}, Dir: plain}, spawn.KindBadDir, "not a directory"},
		{"env name with =", spawn.Spec{Argv: []string{"true"}, Env: map[string]string{"A=B": "x"}}, spawn.KindInvalidEnv, `"A=B"`},
		{"empty env name", spawn.Spec{Argv: []string{"true"}, Env: map[string]string{"": "x"}}, spawn.KindInvalidEnv, `""`},
		{"NUL in env value", spawn.Spec{Argv: []string{"true"}, Env: map[string]string{"A": "x\x00y"}}, spawn.KindInvalidEnv, "NUL"},
		{"bad unset name", spawn.Spec{Argv: []string{"true"}, Unset: []string{"X=1"}}, spawn.KindInvalidEnv, "Unset"},
		{"negative timeout", spawn.Spec{Argv: []string{"true"}, Timeout: -time.Second}, spawn.KindInvalidTimeout, "timeout"},
		{"absurd timeout", spawn.Spec{Argv: []string{"true"}, Timeout: 1 << 62}, spawn.KindInvalidTimeout, "out of range"},
		{"negative grace", spawn.Spec{Argv: []string{"true"}, Grace: -1}, spawn.KindInvalidTimeout, "grace"},
		{"absurd grace", spawn.Spec{Argv: []string{"true"}, Grace: 24 * time.Hour}, spawn.KindInvalidTimeout, "grace"},
		{"NUL in argument", spawn.Spec{Argv: []string{"true", "a\x00b"}}, spawn.KindOther, "NUL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := spawn.Start(context.Background(), tt.spec)
			if err == nil {
				p.Stop(0)
				t.Fatal("started; want an error")
			}
			var se *spawn.StartError
			if !errors.As(err, &se) {
				t.Fatalf("error %v (%T) is not a *StartError", err, err)
			}
			if se.Kind != tt.kind || !spawn.IsKind(err, tt.kind) {
				t.Errorf("kind %v, want %v (%v)", se.Kind, tt.kind, err)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("message %q lacks %q", err, tt.msg)
			}
		})
	}
}

func TestStartCancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := spawn.Run(ctx, spawn.Spec{Argv: []string{"true"}}); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
}

func TestStreams(t *testing.T) {
	var out, errb, comb bytes.Buffer
	// The partial "out-" must not be split by the stderr line in Combined.
	script := `printf 'out-'; printf 'err-line\n' >&2; printf 'tail\n'; printf 'no newline' >&2`
	res, err := spawn.Run(context.Background(), spawn.Spec{
		Argv: []string{"sh", "-c", script}, Stdout: &out, Stderr: &errb, Combined: &comb,
	})
	if err != nil || !res.Success() {
		t.Fatalf("%v %v", res, err)
	}
	if out.String() != "out-tail\n" || errb.String() != "err-line\nno newline" {
		t.Errorf("stdout %q stderr %q", out.String(), errb.String())
	}
	lines := strings.SplitAfter(comb.String(), "\n")
	slices.Sort(lines)
	if want := []string{"", "err-line\n", "no newline\n", "out-tail\n"}; !slices.Equal(lines, want) {
		t.Errorf("combined lines %q, want %q in some order", lines, want)
	}
}

// TestCombinedLongLine: a line longer than MaxLineLen reaches Combined in
// newline-terminated pieces, and the Stdout sink verbatim.
func TestCombinedLongLine(t *testing.T) {
	n := spawn.MaxLineLen*2 + 10
	var out, comb bytes.Buffer
	res, err := spawn.Run(context.Background(), spawn.Spec{
		Argv:   []string{"head", "-c", strconv.Itoa(n), "/dev/zero"},
		Stdout: &out, Combined: &comb,
	})
	if err != nil || !res.Success() {
		t.Fatalf("%v %v", res, err)
	}
	if out.Len() != n || bytes.Count(out.Bytes(), []byte("\n")) != 0 {
		t.Errorf("stdout sink: %d bytes, %d newlines", out.Len(), bytes.Count(out.Bytes(), []byte("\n")))
	}
	pieces := strings.SplitAfter(comb.String(), "\n")
	if len(pieces) != 4 || len(pieces[0]) != spawn.MaxLineLen+1 || len(pieces[1]) != spawn.MaxLineLen+1 || pieces[2] != strings.Repeat("\x00", 10)+"\n" {
		t.Errorf("combined pieces: %d, lens %d", len(pieces), len(comb.String()))
	}
}

func TestEnvAndDir(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TRIAGE_PROC_DROP", "dropped")
	t.Setenv("TRIAGE_PROC_KEEP", "kept")
	var out bytes.Buffer
	res, err := spawn.Run(context.Background(), spawn.Spec{
		Argv:   []string{"sh", "-c", `echo "$PWD|$TRIAGE_PROC_SET|${TRIAGE_PROC_DROP-unset}|$TRIAGE_PROC_KEEP"`},
		Dir:    dir,
		Env:    map[string]string{"TRIAGE_PROC_SET": "a b;c", "TRIAGE_PROC_KEEP": "overridden"},
		Unset:  []string{"TRIAGE_PROC_DROP"},
		Stdout: &out,
	})
	if err != nil || !res.Success() {
		t.Fatalf("%v %v", res, err)
	}
	if want := dir + "|a b;c|unset|overridden\n"; out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
}

func TestRelativeProgramIsRelativeToDir(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "hello.sh"), []byte("#!/bin/sh\necho hi\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	res, err := spawn.Run(context.Background(), spawn.Spec{Argv: []string{"./hello.sh"}, Dir: dir, Stdout: &out})
	if err != nil || !res.Success() || out.String() != "hi\n" {
		t.Fatalf("%v %v %q", res, err, out.String())
	}
}

func TestStdinReader(t *testing.T) {
	var out bytes.Buffer
	res, err := spawn.Run(context.Background(), spawn.Spec{
		Argv: []string{"cat"}, Stdin: strings.NewReader("line one\nline two\n"), Stdout: &out,
	})
	if err != nil || !res.Success() || out.String() != "line one\nline two\n" {
		t.Fatalf("%v %v %q", res, err, out.String())
	}
}

func TestStdinFile(t *testing.T) {
	f, err := os.Open("spawn_test.go")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out bytes.Buffer
	if _, err := spawn.Run(context.Background(), spawn.Spec{Argv: []string{"wc", "-l"}, Stdin: f, Stdout: &out}); err != nil {
		t.Fatal(err)
	}
	// The caller's file must still be open: the child got a duplicate.
	if _, err := f.Stat(); err != nil {
		t.Errorf("caller's stdin file was closed: %v", err)
	}
	if strings.TrimSpace(out.String()) == "0" {
		t.Errorf("child read nothing")
	}
}

// TestInteractive drives a child the way repl drives gdb: commands through
// an io.Pipe, replies awaited on the sink.
func TestInteractive(t *testing.T) {
	inR, inW := io.Pipe()
	w := newWatcher("pong 1")
	p, err := spawn.Start(context.Background(), spawn.Spec{
		Argv:   []string{"sh", "-c", `while read cmd arg; do echo "pong $arg"; done; echo bye`},
		Stdin:  inR,
		Stdout: w,
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(inW, "ping 1\n"); err != nil {
		t.Fatal(err)
	}
	w.wait(t)
	select {
	case <-p.Done():
		t.Fatal("child ended while its stdin was open")
	default:
	}
	inW.Close()
	res, err := p.Wait()
	if err != nil || !res.Success() {
		t.Fatalf("%v %v", res, err)
	}
	if got := w.String(); got != "pong 1\nbye\n" {
		t.Errorf("got %q", got)
	}
}

func TestStartInteractive(t *testing.T) {
	w := newWatcher("echo: hello")
	p, stdin, err := spawn.StartInteractive(context.Background(), spawn.Spec{
		Argv:   []string{"sh", "-c", `while read line; do echo "echo: $line"; done`},
		Stdout: w,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := stdin.SetWriteDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatalf("pipe does not support deadlines: %v", err)
	}
	if _, err := io.WriteString(stdin, "hello\n"); err != nil {
		t.Fatal(err)
	}
	w.wait(t)
	stdin.Close()
	res, err := p.Wait()
	if err != nil || !res.Success() {
		t.Fatalf("%v %v", res, err)
	}
	if _, _, err := spawn.StartInteractive(context.Background(), spawn.Spec{Argv: []string{"cat"}, Stdin: strings.NewReader("")}); !spawn.IsKind(err, spawn.KindOther) {
		t.Errorf("Stdin with StartInteractive: %v", err)
	}
}

// TestStartInteractiveWriteAfterExit: the pipe is closed for the caller
// once the child is gone, so a late write fails instead of blocking.
func TestStartInteractiveWriteAfterExit(t *testing.T) {
	p, stdin, err := spawn.StartInteractive(context.Background(), spawn.Spec{Argv: []string{"true"}})
	if err != nil {
		t.Fatal(err)
	}
	p.Wait()
	if _, err := stdin.Write([]byte("late\n")); err == nil {
		t.Error("write after exit succeeded")
	}
}

// TestInteractiveChildExitsFirst: a child that exits while the caller's
// stdin reader is still open must not block Wait.
func TestInteractiveChildExitsFirst(t *testing.T) {
	inR, inW := io.Pipe()
	defer inW.Close()
	res, err := spawn.Run(context.Background(), spawn.Spec{Argv: []string{"true"}, Stdin: inR})
	if err != nil || !res.Success() {
		t.Fatalf("%v %v", res, err)
	}
}

func TestSignalLeader(t *testing.T) {
	w := newWatcher("ready")
	p, err := spawn.Start(context.Background(), spawn.Spec{Argv: []string{crashers.Build(t, "sleeper")}, Stdout: w})
	if err != nil {
		t.Fatal(err)
	}
	w.wait(t)
	if err := p.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	res, _ := p.Wait()
	if res.SignalName != "SIGINT" || res.Cancelled {
		t.Errorf("got %+v", res)
	}
	if err := p.Signal(syscall.SIGINT); !errors.Is(err, os.ErrProcessDone) {
		t.Errorf("signal after exit: %v, want os.ErrProcessDone", err)
	}
}

type failingWriter struct{ n int }

func (f *failingWriter) Write(p []byte) (int, error) {
	f.n++
	return 0, errors.New("disk full")
}

// TestSinkFailure: a broken sink must neither block the child nor hide
// the result.
func TestSinkFailure(t *testing.T) {
	fw := &failingWriter{}
	res, err := spawn.Run(context.Background(), spawn.Spec{
		Argv: []string{crashers.Build(t, "bigoutput"), "1000000"}, Stdout: fw,
	})
	if res == nil || !res.Success() {
		t.Fatalf("result %v", res)
	}
	if err == nil || !strings.Contains(err.Error(), "writing stdout sink: disk full") {
		t.Errorf("error %v", err)
	}
	if fw.n != 1 {
		t.Errorf("failed sink written %d times, want 1", fw.n)
	}
}

// TestNoFDLeak: neither runs nor failed starts (including exec failing
// after the pipes exist) leave descriptors behind.
func TestNoFDLeak(t *testing.T) {
	fds := func() int {
		ents, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Skip("no /proc/self/fd on this OS")
		}
		return len(ents)
	}
	garbage := filepath.Join(t.TempDir(), "garbage")
	if err := os.WriteFile(garbage, []byte("\x7fELF nope"), 0o755); err != nil {
		t.Fatal(err)
	}
	run := func() {
		spawn.Run(context.Background(), spawn.Spec{Argv: []string{"true"}, Stdin: strings.NewReader("x")})
		spawn.Run(context.Background(), spawn.Spec{Argv: []string{garbage}, Stdin: strings.NewReader("x")})
		spawn.Run(context.Background(), spawn.Spec{Argv: []string{"no-such-program-triage"}})
		if p, w, err := spawn.StartInteractive(context.Background(), spawn.Spec{Argv: []string{"true"}}); err == nil {
			p.Wait()
			w.Close()
		}
	}
	run() // warm up lazily opened descriptors (/dev/null, epoll)
	// No GC: finalizers of leaked *os.File values would hide the leak.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	before := fds()
	for range 10 {
		run()
	}
	if after := fds(); after != before {
		t.Errorf("descriptors: %d before, %d after", before, after)
	}
}

// TestChildStdinIsBlocking: os.Pipe ends are non-blocking for Go's poller;
// a child inheriting O_NONBLOCK would see EAGAIN on its first read of an
// empty pipe and take it for EOF.
func TestChildStdinIsBlocking(t *testing.T) {
	if _, err := os.Stat("/proc/self/fdinfo/0"); err != nil {
		t.Skip("no /proc/self/fdinfo on this OS")
	}
	check := func(t *testing.T, p *spawn.Process, out *bytes.Buffer) {
		t.Helper()
		if _, err := p.Wait(); err != nil {
			t.Fatal(err)
		}
		var flags int64
		if _, err := fmt.Sscanf(strings.TrimSpace(out.String()), "flags:\t%o", &flags); err != nil {
			t.Fatalf("parsing %q: %v", out.String(), err)
		}
		if flags&syscall.O_NONBLOCK != 0 {
			t.Errorf("child stdin has O_NONBLOCK (flags %o)", flags)
		}
	}
	script := []string{"sh", "-c", "grep flags /proc/self/fdinfo/0"}
	t.Run("StartInteractive", func(t *testing.T) {
		var out bytes.Buffer
		p, w, err := spawn.StartInteractive(context.Background(), spawn.Spec{Argv: script, Stdout: &out})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		check(t, p, &out)
	})
	t.Run("caller pipe", func(t *testing.T) {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		defer w.Close()
		var out bytes.Buffer
		p, err := spawn.Start(context.Background(), spawn.Spec{Argv: script, Stdin: r, Stdout: &out})
		if err != nil {
			t.Fatal(err)
		}
		check(t, p, &out)
	})
}

func TestMergeStderrKeepsOrder(t *testing.T) {
	var out, errOut strings.Builder
	res, err := spawn.Run(context.Background(), spawn.Spec{
		Argv:        []string{"sh", "-c", `for i in 1 2 3; do echo out$i; echo err$i >&2; done`},
		MergeStderr: true,
		Stdout:      &out,
		Stderr:      &errOut,
	})
	if err != nil || !res.Success() {
		t.Fatalf("%v %v", err, res)
	}
	if out.String() != "out1\nerr1\nout2\nerr2\nout3\nerr3\n" || errOut.Len() != 0 {
		t.Errorf("stdout %q, stderr %q", out.String(), errOut.String())
	}
}
