package coredump

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/spawn"
)

// Crash describes a process that died, as the runner saw it.
type Crash struct {
	Pid    int
	Exe    string // path of the executable that ran
	Cwd    string // its working directory (cores with relative patterns land here)
	Uid    int    // -1 when unknown
	Gid    int    // -1 when unknown
	Signal int    // the terminating signal, 0 when unknown
	// CoreDumped is the WCOREDUMP bit of the wait status: the kernel says it
	// wrote (or piped) a core.
	CoreDumped     bool
	Started, Ended time.Time
}

// CrashFromResult describes a finished spawn run for Find.
func CrashFromResult(res *spawn.Result) Crash {
	cwd := res.Dir
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	return Crash{
		Pid: res.Pid, Exe: res.Path, Cwd: cwd,
		Uid: os.Getuid(), Gid: os.Getgid(),
		Signal: int(res.Signal), CoreDumped: res.CoreDumped,
		Started: res.Started, Ended: res.Started.Add(res.Duration),
	}
}

// Artifact is one piece of post-mortem evidence for a crash.
type Artifact struct {
	Kind    string    `json:"kind"` // "core", "ips", "crash", "coredumpctl", "apport"
	Path    string    `json:"path,omitempty"`
	Size    int64     `json:"size,omitempty"`
	ModTime time.Time `json:"mod_time,omitzero"`
	Note    string    `json:"note,omitempty"`
}

// ErrNoCore: no dump was found for the crash; the *NoCoreError says why.
var ErrNoCore = errors.New("no core dump found")

// NoCoreError explains why Find found nothing, in words for the model:
// where the dump was expected, or which handler took it.
type NoCoreError struct {
	Reason string
}

func (e *NoCoreError) Error() string { return "no core dump found: " + e.Reason }
func (e *NoCoreError) Is(target error) bool {
	return target == ErrNoCore
}

// Finder locates dumps. The zero value uses the real system paths and
// waits up to DefaultWait for asynchronous handlers.
type Finder struct {
	GOOS       string   // runtime.GOOS when empty
	ProcSys    string   // "/proc/sys": holds kernel/core_pattern and kernel/core_uses_pid
	CrashDir   string   // apport reports: "/var/crash"
	ApportCore string   // apport's stored cores: "/var/lib/apport/coredump"
	ReportDirs []string // macOS: ~/Library/Logs/DiagnosticReports and /Library/Logs/DiagnosticReports
	Hostname   string   // for %h; os.Hostname when empty
	// Wait bounds how long Find polls for dumps written asynchronously
	// (systemd-coredump, apport, ReportCrash); 0 means DefaultWait and a
	// negative value means look once.
	Wait time.Duration

	onMiss func()            // test hook: called after each poll that found nothing
	onHold func(path string) // test hook: a CoreWatch opened a core file
}

// DefaultWait is how long Find polls asynchronous crash handlers.
const DefaultWait = 5 * time.Second

// pollInterval paces polling of asynchronous handlers.
const pollInterval = 100 * time.Millisecond

// Find locates the dumps of c with a zero Finder.
func Find(ctx context.Context, c Crash) ([]Artifact, error) {
	var f Finder
	return f.Find(ctx, c)
}

// Find locates the core dump or crash report of c. When it finds nothing
// the error is a *NoCoreError (errors.Is ErrNoCore) saying why.
func (f *Finder) Find(ctx context.Context, c Crash) ([]Artifact, error) {
	switch f.goos() {
	case "linux":
		return f.findLinux(ctx, c)
	case "darwin":
		return f.findAppleReports(ctx, c)
	}
	return nil, &NoCoreError{Reason: "finding dumps is not supported on " + f.goos()}
}

func (f *Finder) goos() string     { return cmpOr(f.GOOS, runtime.GOOS) }
func (f *Finder) procSys() string  { return cmpOr(f.ProcSys, "/proc/sys") }
func (f *Finder) crashDir() string { return cmpOr(f.CrashDir, "/var/crash") }
func (f *Finder) apportCore() string {
	return cmpOr(f.ApportCore, "/var/lib/apport/coredump")
}

func (f *Finder) wait() time.Duration {
	switch {
	case f.Wait == 0:
		return DefaultWait
	case f.Wait < 0:
		return 0
	}
	return f.Wait
}

func (f *Finder) hostname() string {
	if f.Hostname != "" {
		return f.Hostname
	}
	h, _ := os.Hostname()
	return h
}

func (f *Finder) findLinux(ctx context.Context, c Crash) ([]Artifact, error) {
	if !c.CoreDumped && c.Signal > 0 && !coreSignal(c.Signal) {
		return nil, &NoCoreError{Reason: fmt.Sprintf("%s does not dump core (only SIGQUIT, SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGSEGV, SIGXCPU, SIGXFSZ, SIGSYS do)", SignalName(c.Signal))}
	}
	raw, err := os.ReadFile(filepath.Join(f.procSys(), "kernel", "core_pattern"))
	if err != nil {
		return nil, fmt.Errorf("reading core_pattern: %w", err)
	}
	pat := parseCorePattern(string(raw))
	if pat.pipe {
		return f.findPiped(ctx, c, pat)
	}
	usesPid := false
	if b, err := os.ReadFile(filepath.Join(f.procSys(), "kernel", "core_uses_pid")); err == nil {
		usesPid = strings.TrimSpace(string(b)) != "0"
	}
	loc := locate(pat.raw, c, f.hostname(), usesPid)
	arts, other := coreFiles(loc, c)
	if len(arts) > 0 {
		return arts, nil
	}
	reason := noFileCoreReason(c, pat.raw, loc)
	if other != "" {
		reason += "; " + other
	}
	return nil, &NoCoreError{Reason: reason}
}

// ExpectedCore is where a file core_pattern puts c's core: the exact path,
// or a glob (filepath.Match syntax) when the pattern holds values Crash
// does not know (%t, %h with hostname "", %u with Uid -1). A pattern that
// pipes cores to a handler is a *NoCoreError naming it.
func ExpectedCore(pattern string, usesPid bool, c Crash, hostname string) (path string, glob bool, err error) {
	pat := parseCorePattern(pattern)
	if pat.pipe {
		return "", false, &NoCoreError{Reason: fmt.Sprintf("core_pattern pipes cores to %s (%q)", pat.handlerName(), pat.raw)}
	}
	loc := locate(pat.raw, c, hostname, usesPid)
	return loc.String(), loc.exact == "", nil
}

// NoFileCoreReason says why a file core_pattern's core is not at loc.
func NoFileCoreReason(c Crash, pattern, loc string) string {
	return noFileCoreReason(c, pattern, coreLocation{exact: loc})
}

func (f *Finder) findPiped(ctx context.Context, c Crash, pat corePattern) ([]Artifact, error) {
	handler := pat.handlerName()
	switch {
	case strings.Contains(handler, "systemd-coredump"):
		return f.findCoredumpctl(ctx, c)
	case strings.Contains(handler, "apport"):
		return f.findApport(ctx, c)
	}
	return nil, &NoCoreError{Reason: fmt.Sprintf(
		"core_pattern pipes cores to %s (%q); the core, if any, is wherever that handler stores it", handler, pat.raw)}
}

// coreFiles returns the cores at loc written during the crash. A core at
// the exact path that predates the run, or whose pid is another process's,
// is a leftover from an earlier crash and is skipped; other says so of the
// first core of another process written since the run started (a later
// crash in the same directory overwrote the one the crash left).
func coreFiles(loc coreLocation, c Crash) (arts []Artifact, other string) {
	paths := []string{loc.exact}
	if loc.exact == "" {
		paths, _ = filepath.Glob(loc.glob)
	}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil || !st.Mode().IsRegular() {
			continue
		}
		if !c.Started.IsZero() && st.ModTime().Before(c.Started.Add(-time.Second)) {
			continue
		}
		art := Artifact{Kind: "core", Path: p, Size: st.Size(), ModTime: st.ModTime()}
		if info, err := OpenCore(p); err == nil {
			if !info.IsOf(Proc{Pid: c.Pid}) {
				if other == "" {
					other = info.NotOf(filepath.Dir(p), "the crashed process", Proc{Pid: c.Pid, Exe: c.Exe})
				}
				continue
			}
			art.Note = info.Summary()
		} else {
			art.Note = "unreadable core: " + err.Error()
		}
		arts = append(arts, art)
	}
	slices.SortFunc(arts, func(a, b Artifact) int { return b.ModTime.Compare(a.ModTime) })
	return arts, other
}

func noFileCoreReason(c Crash, pattern string, loc coreLocation) string {
	var why []string
	if !c.CoreDumped {
		why = append(why, "the kernel reported no core dump (WCOREDUMP unset): RLIMIT_CORE was 0 (run with core dumps enabled), the directory was not writable, the disk was full, or the program was not dumpable (setuid, prctl PR_SET_DUMPABLE)")
	} else {
		why = append(why, "the kernel reported a core dump, but it is not there: it was moved or deleted (a later crash in the same directory overwrites it), or the process changed directory before crashing")
	}
	return fmt.Sprintf("expected at %s (core_pattern %q): %s", loc, pattern, strings.Join(why, "; "))
}

// coreSignal reports whether sig's default action dumps core.
func coreSignal(sig int) bool {
	switch sig {
	case 3, 4, 5, 6, 7, 8, 11, 24, 25, 31:
		return true
	}
	return false
}

// poll calls look until it returns artifacts, an error, the context ends or
// wait elapses. look runs at least once.
func (f *Finder) poll(ctx context.Context, look func() ([]Artifact, error)) ([]Artifact, error) {
	wait := f.wait()
	deadline := time.Now().Add(wait)
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	for {
		arts, err := look()
		if err != nil || len(arts) > 0 || !time.Now().Before(deadline) {
			return arts, err
		}
		if f.onMiss != nil {
			f.onMiss()
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-tick.C:
		}
	}
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func itoa(n int) string { return strconv.Itoa(n) }
