package repl

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func regexpMust(s string) *regexp.Regexp { return regexp.MustCompile(s) }

func startFake(t *testing.T, cfg Config) *Session {
	t.Helper()
	s, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestRunOutputs(t *testing.T) {
	for _, mode := range []string{"plain", "echo"} {
		t.Run(mode, func(t *testing.T) {
			s := startFake(t, fakeConfig(t, mode))
			for _, tc := range []struct{ cmd, want string }{
				{"echo hello world", "hello world"},
				{"stderr to stderr", "to stderr"},
				{"ansi", "red plain done"},
				{"hostile", "$1 = 123457\np 1+2\nno newline at the end"},
				{"", ""},
				{"nosuch", `unknown command "nosuch"`},
			} {
				got, err := s.Run(context.Background(), tc.cmd)
				if err != nil {
					t.Fatalf("Run(%q): %v", tc.cmd, err)
				}
				if got != tc.want {
					t.Errorf("Run(%q) = %q, want %q", tc.cmd, got, tc.want)
				}
			}
		})
	}
}

func TestRunLargeOutput(t *testing.T) {
	s := startFake(t, fakeConfig(t, "plain"))
	got, err := s.Run(context.Background(), "flood 20000")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(got, "\n")
	if len(lines) != 20000 || lines[0] != "line 0" || lines[19999] != "line 19999" {
		t.Fatalf("got %d lines, first %q last %q", len(lines), lines[0], lines[len(lines)-1])
	}
}

func TestMaxOutputDropsOldest(t *testing.T) {
	cfg := fakeConfig(t, "plain")
	cfg.MaxOutput = 4096
	s := startFake(t, cfg)
	got, err := s.Run(context.Background(), "flood 5000")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(got, "[... ") || !strings.HasSuffix(got, "line 4999") {
		t.Fatalf("output does not note the cut or lost the end: %.80q ... %q", got, got[len(got)-20:])
	}
}

func TestCommandsSerialized(t *testing.T) {
	s := startFake(t, fakeConfig(t, "plain"))
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			want := strings.Repeat("x", i+1)
			got, err := s.Run(context.Background(), "echo "+want)
			if err != nil || got != want {
				t.Errorf("Run(echo %s) = %q, %v", want, got, err)
			}
		}()
	}
	wg.Wait()
}

func TestTimeoutInterruptKeepsSession(t *testing.T) {
	s := startFake(t, fakeConfig(t, "plain"))
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	out, err := s.Run(ctx, "hang")
	if !errors.Is(err, ErrTimeout) || errors.Is(err, ErrDead) {
		t.Fatalf("err = %v, want ErrTimeout without ErrDead", err)
	}
	if out != "Quit" {
		t.Errorf("output = %q, want the engine's reaction to SIGINT", out)
	}
	if got, err := s.Run(context.Background(), "echo alive"); err != nil || got != "alive" {
		t.Fatalf("after interrupt: %q, %v", got, err)
	}
}

func TestTimeoutKillMarksDeadThenRestart(t *testing.T) {
	cfg := fakeConfig(t, "plain")
	cfg.InterruptGrace = 100 * time.Millisecond
	s := startFake(t, cfg)
	oldPid := s.Pid()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := s.Run(ctx, "hang-hard")
	if !errors.Is(err, ErrTimeout) || !errors.Is(err, ErrDead) {
		t.Fatalf("err = %v, want ErrTimeout and ErrDead", err)
	}
	if syscall.Kill(oldPid, 0) == nil {
		t.Errorf("engine pid %d still alive after kill", oldPid)
	}
	if _, err := s.Run(context.Background(), "echo x"); !errors.Is(err, ErrDead) {
		t.Fatalf("Run on dead session: %v, want ErrDead", err)
	}
	if err := s.Restart(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Run(context.Background(), "echo back"); err != nil || got != "back" {
		t.Fatalf("after restart: %q, %v", got, err)
	}
}

func TestEngineDeathMidCommand(t *testing.T) {
	for _, tc := range []struct{ cmd, status, tail string }{
		{"die", "exited with status 3", "dying"},
		{"kill", "killed by SIGKILL", "about to be killed"},
	} {
		t.Run(tc.cmd, func(t *testing.T) {
			s := startFake(t, fakeConfig(t, "plain"))
			_, err := s.Run(context.Background(), tc.cmd)
			var ee *ExitError
			if !errors.As(err, &ee) || !errors.Is(err, ErrDead) {
				t.Fatalf("err = %v, want *ExitError wrapping ErrDead", err)
			}
			if !strings.Contains(ee.Status, tc.status) || !strings.Contains(ee.Tail, tc.tail) {
				t.Errorf("status %q tail %q", ee.Status, ee.Tail)
			}
			if !errors.Is(s.Err(), ErrDead) {
				t.Errorf("Err() = %v after death", s.Err())
			}
		})
	}
}

func TestStartupTimeout(t *testing.T) {
	cfg := fakeConfig(t, "startup-hang")
	cfg.StartupTimeout = 200 * time.Millisecond
	cfg.InterruptGrace = 100 * time.Millisecond
	_, err := Start(context.Background(), cfg)
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("err = %v, want ErrTimeout", err)
	}
}

func TestStartErrors(t *testing.T) {
	if _, err := Start(context.Background(), Config{}); err == nil {
		t.Error("empty argv accepted")
	}
	if _, err := Start(context.Background(), Config{Argv: []string{"/nonexistent/engine"}}); err == nil {
		t.Error("missing engine accepted")
	}
	s := startFake(t, fakeConfig(t, "plain"))
	if _, err := s.Run(context.Background(), "echo a\necho b"); err == nil {
		t.Error("multi-line command accepted")
	}
}

func TestCloseIdempotentAndFailsRun(t *testing.T) {
	cfg := fakeConfig(t, "plain")
	cfg.QuitCommand = "die"
	s := startFake(t, cfg)
	pid := s.Pid()
	s.Close()
	s.Close()
	if syscall.Kill(pid, 0) == nil {
		t.Errorf("engine %d alive after Close", pid)
	}
	if _, err := s.Run(context.Background(), "echo x"); !errors.Is(err, ErrClosed) {
		t.Errorf("Run after Close: %v", err)
	}
}

func TestStripANSI(t *testing.T) {
	for in, want := range map[string]string{
		"\x1b[31mred\x1b[0m":              "red",
		"a\x1b[2K\x1b[1Gb":                "ab",
		"\x1b]0;title\x07x":               "x",
		"\x1b]8;;http://x\x1b\\link":      "link",
		"crlf\r\nline":                    "crlf\nline",
		"lone \x1b":                       "lone \x1b",
		"\x1b[?2004hbracketed\x1b[?2004l": "bracketed",
	} {
		if got := StripANSI(in); got != want {
			t.Errorf("StripANSI(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSumSentinelEchoProof(t *testing.T) {
	f := SumSentinel("p %d+%d")
	for n := range int64(50) {
		s := f(n)
		if s.Done(s.Command) >= 0 || s.Done("(gdb) "+s.Command+"\n") >= 0 {
			t.Fatalf("sentinel %q matches its own echo", s.Command)
		}
	}
}

func TestRunUntilTimeoutInterrupts(t *testing.T) {
	s := startFake(t, fakeConfig(t, "plain"))
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	out, err := s.RunUntil(ctx, "hang", regexpMust(`never printed`))
	if !errors.Is(err, ErrTimeout) || errors.Is(err, ErrDead) {
		t.Fatalf("err = %v, want ErrTimeout with the session alive", err)
	}
	if out != "Quit" {
		t.Errorf("output = %q", out)
	}
	if got, err := s.RunUntil(context.Background(), "echo done", regexpMust(`done`)); err != nil || got != "done" {
		t.Fatalf("RunUntil after interrupt: %q, %v", got, err)
	}
}

// TestRunWatchLongerThanCommandTimeout: a watch as long as CommandTimeout
// or longer that sees nothing ends as a watch that ran out (the engine not
// interrupted), not as a timed-out command.
func TestRunWatchLongerThanCommandTimeout(t *testing.T) {
	cfg := fakeConfig(t, "plain")
	cfg.CommandTimeout = 300 * time.Millisecond
	s := startFake(t, cfg)
	out, seen, err := s.RunWatch(context.Background(), "echo going", func(string) bool { return false }, 600*time.Millisecond)
	if err != nil || seen || out != "going" {
		t.Fatalf("RunWatch = %q, %v, %v; want the output, not seen, no error", out, seen, err)
	}
}
