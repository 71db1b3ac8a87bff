package observe

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/coredump"
	"github.com/triage-dev/triage/internal/crashsite"
	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/scratch"
	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/toolpath"
	"github.com/triage-dev/triage/internal/verdict"
)

//go:embed gdb.py
var gdbScript string

// Limits of a plan: each bounds the answer (a tracepoint's first and last
// values) or the event log (hits).
const (
	DefaultLimit   = 10_000
	MaxLimit       = 1_000_000
	MaxTracepoints = 32
	MaxExprs       = 16
)

// fatalSignals stop the program for its crash site before they are
// delivered; every other signal passes without a stop.
var fatalSignals = []string{"SIGSEGV", "SIGBUS", "SIGILL", "SIGFPE", "SIGABRT"}

// Tracepoint is one location to record at.
type Tracepoint struct {
	Location  string   `json:"location"`            // file:line or a function
	Exprs     []string `json:"exprs"`               // recorded at each hit, in the location's scope
	Condition string   `json:"condition,omitempty"` // recorded only when true
	Limit     int      `json:"limit"`               // hits recorded; then the tracepoint is disabled
}

// Spec is one observed run.
type Spec struct {
	Program string
	Args    []string
	Dir     string
	Env     map[string]string
	// Tracepoints may be empty: the run is then crash triage alone.
	Tracepoints []Tracepoint
	// ProjectDir is the project's directory, for the crash site's frame.
	ProjectDir string
	Timeout    time.Duration
	// Events receives the event log, one JSON object a line:
	// {"tp":0,"hit":1,"values":{"i":"0"}}. Output receives what the
	// program (and gdb) printed.
	Events, Output io.Writer
}

// Value is one expression's recorded value.
type Value struct {
	Expr  string `json:"expr"`
	Value string `json:"value"`
}

// Hits is what one tracepoint recorded.
type Hits struct {
	Tracepoint
	Hits         int     `json:"hits"`
	LimitReached bool    `json:"limit_reached,omitempty"`
	First        []Value `json:"first,omitempty"`
	Last         []Value `json:"last,omitempty"`
}

// Report is an observed run's outcome.
type Report struct {
	Argv        []string // what gdb ran
	Result      spawn.Result
	Verdict     verdict.Verdict
	Tracepoints []Hits
	// Trace is the crashing thread's backtrace and its site, when a fatal
	// signal killed it.
	Trace *coredump.Trace
	// Site is the crash site: the trace's, else for a crash the source
	// around the frame the program's output named (a Go or Rust panic).
	Site   *crashsite.Site
	Events int
}

// Check fills the tracepoints' default limits and refuses a plan gdb
// could not run, before anything starts.
func Check(tps []Tracepoint) error {
	if len(tps) > MaxTracepoints {
		return fault.Usagef("%d tracepoints: at most %d", len(tps), MaxTracepoints)
	}
	for i := range tps {
		tp := &tps[i]
		tp.Location = strings.TrimSpace(tp.Location)
		switch {
		case tp.Location == "":
			return fault.Usagef("tracepoint %d: location is empty: give file:line or a function", i)
		case tp.Limit < 0:
			return fault.Usagef("tracepoint %d (%s): limit %d: give a positive number of hits (default %d)", i, tp.Location, tp.Limit, DefaultLimit)
		case tp.Limit > MaxLimit:
			return fault.Usagef("tracepoint %d (%s): limit %d: at most %d", i, tp.Location, tp.Limit, MaxLimit)
		case len(tp.Exprs) > MaxExprs:
			return fault.Usagef("tracepoint %d (%s): %d expressions: at most %d", i, tp.Location, len(tp.Exprs), MaxExprs)
		}
		if tp.Limit == 0 {
			tp.Limit = DefaultLimit
		}
		for _, e := range tp.Exprs {
			if strings.TrimSpace(e) == "" {
				return fault.Usagef("tracepoint %d (%s): an expression is empty", i, tp.Location)
			}
		}
	}
	return nil
}

// plan is what gdb.py reads.
type plan struct {
	Events      string       `json:"events"`
	End         string       `json:"end"`
	Fatal       []string     `json:"fatal"`
	Site        []string     `json:"site"`
	Tracepoints []Tracepoint `json:"tracepoints"`
}

// Run runs s.Program under gdb with the plan and waits for it to end. A
// plan gdb refuses (no such location, an expression that does not parse
// there) is a usage error naming the tracepoint.
func Run(ctx context.Context, s Spec) (*Report, error) {
	if err := Check(s.Tracepoints); err != nil {
		return nil, err
	}
	gdb, err := toolpath.GDB.Find()
	if err != nil {
		return nil, fault.Unavailable(err)
	}
	if st, err := os.Stat(s.Program); err != nil || st.IsDir() {
		return nil, fault.Usagef("program %s: not an executable file", s.Program)
	}
	dir, err := scratch.Dir("", "observe")
	if err != nil {
		return nil, err
	}
	defer dir.Remove()
	p, planPath, err := writePlan(dir.Path, s.Tracepoints)
	if err != nil {
		return nil, err
	}
	argv := gdbArgv(gdb, filepath.Join(dir.Path, "observe.py"), s)
	scan := verdict.NewScanner()
	out := io.MultiWriter(scan, orDiscard(s.Output))
	env := map[string]string{"TRIAGE_OBSERVE_PLAN": planPath}
	for k, v := range s.Env {
		env[k] = v
	}
	env["SHELL"] = "/bin/sh" // the shell gdb starts the program with: see gdbArgv
	res, err := spawn.Run(ctx, spawn.Spec{Argv: argv, Dir: s.Dir, Env: env, Timeout: s.Timeout, Combined: out})
	if err != nil {
		return nil, err
	}
	scan.Flush()
	return report(p, s, argv, res, scan)
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

// writePlan writes the plan and the script into dir.
func writePlan(dir string, tps []Tracepoint) (plan, string, error) {
	p := plan{Events: filepath.Join(dir, "events.jsonl"), End: filepath.Join(dir, "end.json"),
		Fatal: fatalSignals, Site: coredump.GDBSiteCommands(), Tracepoints: tps}
	if p.Tracepoints == nil {
		p.Tracepoints = []Tracepoint{}
	}
	for i := range p.Tracepoints {
		if p.Tracepoints[i].Exprs == nil {
			p.Tracepoints[i].Exprs = []string{}
		}
	}
	data, err := json.Marshal(p)
	if err != nil {
		return p, "", err
	}
	path := filepath.Join(dir, "plan.json")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return p, "", err
	}
	return p, path, os.WriteFile(filepath.Join(dir, "observe.py"), []byte(gdbScript), 0o600)
}

// gdbArgv runs the script in batch mode. -nx skips ~/.gdbinit; no
// debuginfod download stalls a run. gdb 13 starts the program through
// $SHELL with the arguments quoted in sh's rules, so SHELL is /bin/sh
// for gdb (a user's fish would read them otherwise) and the program's
// own SHELL is put back: every argument reaches it as given, nothing
// expanded (without a shell, gdb 13 would pass its quoting on). Locations
// must resolve before the run (a pending one would never be reported);
// signals pass without a stop but the fatal ones, which stop for the
// crash site first.
func gdbArgv(gdb, script string, s Spec) []string {
	shell := "unset environment SHELL"
	if v, ok := s.Env["SHELL"]; ok {
		shell = "set environment SHELL=" + v
	} else if v, ok := os.LookupEnv("SHELL"); ok {
		shell = "set environment SHELL=" + v
	}
	argv := []string{gdb, "-nx", "-batch", "-q",
		"-iex", "set debuginfod enabled off",
		"-iex", "unset environment TRIAGE_OBSERVE_PLAN", "-iex", shell,
		"-ex", "set pagination off", "-ex", "set width 0", "-ex", "set confirm off",
		"-ex", "set startup-with-shell on", "-ex", "set breakpoint pending off",
		"-ex", "set print thread-events off",
		"-ex", "handle all nostop noprint pass",
		"-ex", "handle " + strings.Join(fatalSignals, " ") + " stop print pass",
		"-x", script, "--args", s.Program}
	return append(argv, s.Args...)
}

// ErrNoEnd: gdb ended without saying how the program did.
var ErrNoEnd = errors.New("gdb ended without the observed program's end")

// end is what gdb.py wrote when the program ended.
type end struct {
	ExitCode *int   `json:"exit_code"`
	Signal   string `json:"signal"`
	Error    string `json:"error"`
	// PlanError is a tracepoint gdb refused: when it was set (location,
	// expression) or at a hit (its condition).
	PlanError *struct {
		TP      int    `json:"tp"`
		Message string `json:"message"`
	} `json:"plan_error"`
	Crash *struct {
		Signal string   `json:"signal"`
		BT     string   `json:"bt"`
		Site   []string `json:"site"`
		Fault  string   `json:"fault"`
	} `json:"crash"`
}

func readEnd(path string) (end, error) {
	var e end
	data, err := os.ReadFile(path)
	if err != nil {
		return e, err
	}
	return e, json.Unmarshal(data, &e)
}

func (e end) check(tps []Tracepoint) error {
	if se := e.PlanError; se != nil {
		loc := ""
		if se.TP >= 0 && se.TP < len(tps) {
			loc = " (" + tps[se.TP].Location + ")"
		}
		return fault.Usagef("tracepoint %d%s: %s", se.TP, loc, strings.TrimSpace(se.Message))
	}
	if e.Error != "" {
		return fmt.Errorf("gdb: %s", strings.TrimSpace(e.Error))
	}
	return nil
}
