package spawn

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Limits on the durations a Spec may carry. Anything outside them is almost
// certainly a unit mistake (nanoseconds passed as seconds, or the reverse).
const (
	MaxTimeout = 7 * 24 * time.Hour
	MaxGrace   = 10 * time.Minute

	// DefaultGrace is the SIGTERM -> SIGKILL delay used when Spec.Grace is 0.
	DefaultGrace = 3 * time.Second
	// DefaultWaitDelay is how long output pipes may stay open after the
	// leader exited before the rest of the process group is killed.
	DefaultWaitDelay = 500 * time.Millisecond
)

// Spec describes one process to run. The zero value of every optional field
// means "inherit" or "none".
type Spec struct {
	// Argv is the command line. Argv[0] is looked up in PATH unless it
	// contains a '/'; a relative path with a '/' is relative to Dir.
	Argv []string
	// Dir is the working directory ("" inherits ours).
	Dir string
	// Env holds overrides applied on top of the inherited environment.
	Env map[string]string
	// Unset names variables removed from the inherited environment.
	Unset []string
	// Stdin feeds the child's standard input; nil means /dev/null. Any
	// io.Reader works, including the read side of an io.Pipe for
	// interactive children (see Start and StartInteractive). Do not pass a
	// terminal: the child runs in its own, background, process group and
	// would be stopped by SIGTTIN on its first read.
	Stdin io.Reader
	// Timeout bounds the run; 0 means none.
	Timeout time.Duration
	// Grace is the delay between SIGTERM and SIGKILL to the process group
	// on timeout, cancellation or Stop; 0 means DefaultGrace.
	Grace time.Duration
	// WaitDelay bounds how long, once the leader has exited, we keep
	// reading output that descendants still hold open before killing what
	// is left of the process group; 0 means DefaultWaitDelay.
	WaitDelay time.Duration
	// CoreDumps raises the child's RLIMIT_CORE soft limit to the hard limit.
	CoreDumps bool
	// MergeStderr gives the child one pipe for both stdout and stderr (as
	// 2>&1 would), so their order is the child's own; everything goes to the
	// Stdout sink. Interactive engines need it: an error message must not
	// overtake the output printed before it.
	MergeStderr bool
	// Stdout and Stderr receive each stream as it arrives. Sinks are
	// written from reader goroutines and must not block forever: a slow
	// sink slows the child down (its pipe fills), a stuck one stalls Wait.
	Stdout, Stderr io.Writer
	// Combined receives both streams in arrival order, as whole lines:
	// a line from one stream is never split by a line of the other (see
	// MaxLineLen for the two cases where a '\n' is added to keep it so).
	Combined io.Writer

	// OnHang, when set, is called before a hung group is killed: when
	// Timeout (or the context's deadline) passes, before SIGTERM; and after
	// Stop, when the group outlived the grace period, before SIGKILL. It
	// lets the caller take the stacks of a group still alive. Its context
	// ends after HangLimit, and the kill proceeds when it returns or the
	// limit passes, whichever comes first; it must return soon after its
	// context ends. Never called for a cancelled context or a run that
	// ended on its own.
	OnHang func(context.Context, Hang)
	// HangLimit bounds OnHang; 0 means DefaultHangLimit.
	HangLimit time.Duration
	// Stall, when set, watches the running group for no progress: it runs
	// in its own goroutine from the start, given the group's id, and
	// returns true when the group stalled, false once its context ends
	// (the leader exited, or the run was ended otherwise). A stall ends
	// the run as a timeout does: OnHang (HangStall) takes the stacks, then
	// SIGTERM and SIGKILL after Grace; Result.Stalled is set, and
	// TimedOut with it, since we cut the run short for time.
	Stall func(ctx context.Context, pgid int) bool
	// OnExit, when set, is called once the leader has exited, however it
	// ended, before its group is reaped and the rest of its output read:
	// what the leader wrote to files before it exited can be read then,
	// beside that work. It must not block.
	OnExit func()
}

// StartErrorKind says why a process could not be started.
type StartErrorKind int

const (
	KindOther          StartErrorKind = iota
	KindEmptyArgv                     // no program given
	KindNotFound                      // program (or its interpreter) does not exist
	KindNotExecutable                 // exists but cannot be executed
	KindIsDirectory                   // program path names a directory
	KindBadDir                        // working directory missing or not a directory
	KindInvalidEnv                    // an environment name is unusable
	KindInvalidTimeout                // Timeout, Grace or WaitDelay out of range
)

var kindNames = [...]string{
	KindOther:          "other",
	KindEmptyArgv:      "empty argv",
	KindNotFound:       "not found",
	KindNotExecutable:  "not executable",
	KindIsDirectory:    "is a directory",
	KindBadDir:         "bad working directory",
	KindInvalidEnv:     "invalid environment",
	KindInvalidTimeout: "invalid timeout",
}

func (k StartErrorKind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("StartErrorKind(%d)", int(k))
}

// StartError reports a process that could not be started. Callers branch on
// Kind with errors.As; the message says what to fix.
type StartError struct {
	Kind    StartErrorKind
	Program string // Argv[0] as given, when relevant
	Detail  string // what is wrong and how to fix it
	Err     error  // underlying cause, if any
}

func (e *StartError) Error() string {
	var b strings.Builder
	b.WriteString("starting ")
	if e.Program != "" {
		fmt.Fprintf(&b, "%q", e.Program)
	} else {
		b.WriteString("process")
	}
	b.WriteString(": ")
	b.WriteString(e.Detail)
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

func (e *StartError) Unwrap() error { return e.Err }

// IsKind reports whether err is a *StartError of the given kind.
func IsKind(err error, k StartErrorKind) bool {
	var se *StartError
	return errors.As(err, &se) && se.Kind == k
}

// resolved is a validated Spec, ready for fork/exec.
type resolved struct {
	path string
	env  []string
}

func (s *Spec) validate() (*resolved, error) {
	if len(s.Argv) == 0 || s.Argv[0] == "" {
		return nil, &StartError{Kind: KindEmptyArgv, Detail: "argv is empty: give the program to run as argv[0]"}
	}
	prog := s.Argv[0]
	if err := checkDurations(prog, s); err != nil {
		return nil, err
	}
	for _, a := range s.Argv {
		if strings.IndexByte(a, 0) >= 0 {
			return nil, &StartError{Kind: KindOther, Program: prog, Detail: fmt.Sprintf("argument %q contains a NUL byte", a)}
		}
	}
	if s.Dir != "" {
		fi, err := os.Stat(s.Dir)
		switch {
		case err != nil:
			return nil, &StartError{Kind: KindBadDir, Program: prog, Detail: fmt.Sprintf("working directory %q is not usable: create it or pass an existing dir", s.Dir), Err: err}
		case !fi.IsDir():
			return nil, &StartError{Kind: KindBadDir, Program: prog, Detail: fmt.Sprintf("working directory %q is not a directory", s.Dir)}
		}
	}
	env, err := buildEnv(prog, os.Environ(), s.Env, s.Unset)
	if err != nil {
		return nil, err
	}
	path, err := resolvePath(prog, s.Dir, env)
	if err != nil {
		return nil, err
	}
	return &resolved{path: path, env: env}, nil
}

func checkDurations(prog string, s *Spec) error {
	check := func(name string, d, max time.Duration) error {
		if d < 0 || d > max {
			return &StartError{Kind: KindInvalidTimeout, Program: prog,
				Detail: fmt.Sprintf("%s %v is out of range: use 0 (none/default) up to %v", name, d, max)}
		}
		return nil
	}
	return errors.Join(
		check("timeout", s.Timeout, MaxTimeout),
		check("grace", s.Grace, MaxGrace),
		check("wait delay", s.WaitDelay, MaxGrace),
		check("hang limit", s.HangLimit, MaxGrace),
	)
}

// validEnvName rejects names the kernel would mangle: empty, containing '='
// (the name/value separator) or NUL.
func validEnvName(name string) bool {
	return name != "" && !strings.ContainsAny(name, "=\x00")
}

// buildEnv applies overrides and removals to base. Overrides are appended in
// sorted order so the child's environment is deterministic.
// CheckEnv applies a Spec's rules for Env and Unset (names non-empty,
// without '=' or NUL; values without NUL) to an environment that is built
// elsewhere (on another host), as the *StartError Start would give.
func CheckEnv(prog string, set map[string]string, unset []string) error {
	_, err := buildEnv(prog, nil, set, unset)
	return err
}

func buildEnv(prog string, base []string, set map[string]string, unset []string) ([]string, error) {
	bad := func(name, why string) error {
		return &StartError{Kind: KindInvalidEnv, Program: prog,
			Detail: fmt.Sprintf("environment name %q %s: names must be non-empty and contain no '=' or NUL", name, why)}
	}
	drop := make(map[string]bool, len(set)+len(unset))
	for _, name := range unset {
		if !validEnvName(name) {
			return nil, bad(name, "(in Unset) is invalid")
		}
		drop[name] = true
	}
	keys := make([]string, 0, len(set))
	for name, val := range set {
		if !validEnvName(name) {
			return nil, bad(name, "is invalid")
		}
		if strings.IndexByte(val, 0) >= 0 {
			return nil, &StartError{Kind: KindInvalidEnv, Program: prog, Detail: fmt.Sprintf("value of environment variable %q contains a NUL byte", name)}
		}
		drop[name] = true
		keys = append(keys, name)
	}
	slices.Sort(keys)
	env := make([]string, 0, len(base)+len(keys))
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if !drop[name] {
			env = append(env, kv)
		}
	}
	for _, k := range keys {
		env = append(env, k+"="+set[k])
	}
	return env, nil
}

// resolvePath finds the executable the way execve will, so that most start
// failures get a precise Kind before we fork. PATH comes from the child's
// environment, as a shell would use it.
func resolvePath(prog, dir string, env []string) (string, error) {
	if !strings.Contains(prog, "/") {
		path, err := lookPath(prog, env)
		if err != nil {
			return "", &StartError{Kind: KindNotFound, Program: prog,
				Detail: "no executable by that name in PATH: install it, fix PATH, or give a path containing '/'", Err: err}
		}
		return path, nil
	}
	p := prog
	if !filepath.IsAbs(p) && dir != "" {
		p = filepath.Join(dir, p)
	}
	fi, err := os.Stat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", &StartError{Kind: KindNotFound, Program: prog, Detail: fmt.Sprintf("%s does not exist: build it first or fix the path", p)}
	case err != nil:
		return "", &StartError{Kind: KindNotExecutable, Program: prog, Detail: fmt.Sprintf("cannot stat %s", p), Err: err}
	case fi.IsDir():
		return "", &StartError{Kind: KindIsDirectory, Program: prog, Detail: fmt.Sprintf("%s is a directory, not a program", p)}
	case fi.Mode()&0o111 == 0:
		return "", &StartError{Kind: KindNotExecutable, Program: prog, Detail: fmt.Sprintf("%s is not executable: chmod +x it or run it through its interpreter", p)}
	}
	// The path as run from Dir, made absolute: Result.Path must name the
	// executable from anywhere (a backtrace, a hint), not only from Dir.
	if abs, err := filepath.Abs(p); err == nil {
		return abs, nil
	}
	return p, nil
}

func lookPath(prog string, env []string) (string, error) {
	pathVar := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			pathVar = v
		}
	}
	return LookPath(prog, pathVar)
}

// LookPath finds prog in the directories of pathVar (a PATH value) as a
// child started with that PATH would be found: absolute entries only, an
// executable file.
func LookPath(prog, pathVar string) (string, error) {
	for _, dir := range filepath.SplitList(pathVar) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue // relative PATH entries are a security hazard; exec refuses them too
		}
		p := filepath.Join(dir, prog)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}
