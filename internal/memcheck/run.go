package memcheck

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/scratch"
	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/toolpath"
)

// ErrorExitCode is the status valgrind exits with when it counted errors
// (--error-exitcode): far from the statuses programs and shells use (0-2,
// 126-127, 128+signal), so Result.ErrorExit is seldom the program's own.
const ErrorExitCode = 223

// maxStderr bounds the start of valgrind's stderr kept in Result.Stderr:
// its complaints (an unknown option, a program it cannot run) come first.
const maxStderr = 4096

// Options is one program to run under memcheck.
type Options struct {
	Argv []string          // the program and its arguments; argv[0] is looked up in PATH by valgrind
	Dir  string            // its working directory ("" inherits ours)
	Env  map[string]string // overrides on top of the inherited environment
	// Unset names variables removed from the inherited environment, and
	// Stdin feeds the program's standard input (nil: /dev/null): a rerun
	// of a program gets what its run got.
	Unset []string
	Stdin io.Reader
	// ProjectDir is the project's directory, which decides the frame each
	// report names (may be "").
	ProjectDir string
	// Timeout bounds the run (0: only ctx's deadline). The program runs
	// 10-50 times slower under memcheck than alone.
	Timeout time.Duration
	// Leaks checks for leaks at the end (--leak-check=full) and counts
	// definite leaks as errors, each with its allocation stack. Off,
	// leaks are not looked for.
	Leaks bool
	// TrackOrigins has valgrind say where an uninitialised value was
	// created (--track-origins=yes): slower, and the origin of a
	// "uninitialised value decides a branch".
	TrackOrigins bool
	// KeepExit leaves valgrind's exit status the program's own (no
	// --error-exitcode): a run under memcheck from its start (the run
	// tool's check) says how the program ended; its XML says what
	// valgrind found.
	KeepExit bool
	// XMLPath is where valgrind writes its XML, kept for the caller; ""
	// writes it in a temporary directory removed after the run (Result.XML
	// still holds it, bounded).
	XMLPath string
	// Stdout receives the program's standard output, Stderr its standard
	// error and valgrind's own text; nil discards them.
	Stdout, Stderr io.Writer
	// Tool is the valgrind tool: "" is memcheck, ToolHelgrind the thread
	// checker (helgrind.go), which ignores Leaks and TrackOrigins.
	Tool string
}

// Outcome is what a run under memcheck found.
type Outcome int

const (
	// Incomplete: no verdict (Result.Reason says why); never taken for
	// clean.
	Incomplete Outcome = iota
	// Clean: valgrind ran the program to its end and reported no error.
	Clean
	// Found: valgrind reported at least one error.
	Found
)

func (o Outcome) String() string {
	switch o {
	case Clean:
		return "clean"
	case Found:
		return "found"
	}
	return "incomplete"
}

// MarshalText writes the outcome's name.
func (o Outcome) MarshalText() ([]byte, error) { return []byte(o.String()), nil }

// Result is one run under memcheck.
type Result struct {
	Outcome Outcome `json:"outcome"`
	Reason  string  `json:"reason,omitempty"` // why Incomplete
	// Errors are the errors valgrind reported, in its order, at most
	// MaxErrors; Seen counts them all.
	Errors []Report `json:"errors,omitempty"`
	Seen   int      `json:"seen"`
	Signal *Signal  `json:"signal,omitempty"` // the signal the program died of, per valgrind
	Leaks  bool     `json:"leaks"`            // leaks were checked
	Tool   string   `json:"tool,omitempty"`   // Options.Tool: "" is memcheck
	Argv   []string `json:"argv"`             // valgrind's command line
	// Process is how valgrind ended: its exit status (ErrorExitCode when it
	// counted errors), the signal it died of (the program's: valgrind
	// kills itself with it), whether the time limit passed.
	Process *spawn.Result `json:"-"`
	// ErrorExit: valgrind exited with ErrorExitCode.
	ErrorExit bool `json:"error_exit"`
	// XML is valgrind's XML, its first MaxXMLBytes; XMLSize is its whole
	// size; XMLPath names the kept file when Options.XMLPath was given.
	XML     []byte `json:"-"`
	XMLSize int64  `json:"xml_size"`
	XMLPath string `json:"xml_path,omitempty"`
	Stderr  string `json:"stderr,omitempty"` // the start of valgrind's stderr, bounded
}

// First is the first error valgrind reported, or nil.
func (r *Result) First() *Report {
	if len(r.Errors) == 0 {
		return nil
	}
	return &r.Errors[0]
}

// Run runs the program under valgrind memcheck until it ends, the timeout
// passes or ctx ends, and reads what valgrind found. An error is returned
// only when nothing could be run: no program given (usage), valgrind not
// installed (unavailable), or spawn's start errors; everything valgrind
// itself could not do is an Incomplete result that says why.
func Run(ctx context.Context, o Options) (*Result, error) {
	if len(o.Argv) == 0 || o.Argv[0] == "" {
		return nil, fault.Usagef("memcheck: no program given")
	}
	if strings.HasPrefix(o.Argv[0], "-") {
		return nil, fault.Usagef("memcheck: program %q starts with '-', which valgrind would read as its own option: give it as ./%s", o.Argv[0], o.Argv[0])
	}
	vg, err := toolpath.Valgrind.Find()
	if err != nil {
		return nil, fault.Unavailable(err)
	}
	xmlPath, done, err := xmlFile(o.XMLPath)
	if err != nil {
		return nil, err
	}
	defer done()
	argv := Command(vg, xmlPath, o)
	head := &headWriter{max: maxStderr}
	res, err := spawn.Run(ctx, spawn.Spec{Argv: argv, Dir: o.Dir, Env: o.Env, Unset: o.Unset, Stdin: o.Stdin, Timeout: o.Timeout,
		Stdout: o.Stdout, Stderr: io.MultiWriter(head, orDiscard(o.Stderr))})
	if err != nil {
		return nil, err
	}
	r := Conclude(argv, xmlPath, res, o, head.String())
	if o.XMLPath == "" {
		r.XMLPath = "" // removed with its temporary directory
	}
	return r, nil
}

// Conclude reads what valgrind found in a run of argv (Command's for o,
// started by the caller) that ended as p, from the XML at xmlPath; stderr
// is the start of valgrind's stderr, when kept apart.
func Conclude(argv []string, xmlPath string, p *spawn.Result, o Options, stderr string) *Result {
	r := &Result{Argv: argv, Process: p, Leaks: o.Leaks && isMemcheck(o.Tool), Tool: o.Tool, Stderr: stderr,
		ErrorExit: !o.KeepExit && p.Exited && p.ExitCode == ErrorExitCode}
	var readErr error
	r.XML, r.XMLSize, readErr = readHead(xmlPath, MaxXMLBytes)
	if readErr == nil {
		r.XMLPath = xmlPath
	}
	r.conclude(readErr, o.ProjectDir)
	return r
}

// Command is valgrind's command line for o, writing its XML to xmlPath.
func Command(valgrind, xmlPath string, o Options) []string {
	argv := []string{valgrind, "--tool=" + toolName(o.Tool), "--xml=yes",
		// valgrind expands %p, %q{VAR} and %% in the name.
		"--xml-file=" + strings.ReplaceAll(xmlPath, "%", "%%"),
		"--num-callers=" + strconv.Itoa(MaxFrames),
		// A child the program forks would write into the same XML file.
		"--child-silent-after-fork=yes"}
	if !o.KeepExit {
		argv = append(argv, "--error-exitcode="+strconv.Itoa(ErrorExitCode))
	}
	if !isMemcheck(o.Tool) {
		return append(argv, o.Argv...) // memcheck's leak and origin options are its own
	}
	if o.Leaks {
		argv = append(argv, "--leak-check=full", "--show-leak-kinds=definite", "--errors-for-leak-kinds=definite")
	} else {
		// --xml=yes turns the leak check back on (valgrind 3.19): it must
		// also be told to show and count none.
		argv = append(argv, "--leak-check=no", "--show-leak-kinds=none", "--errors-for-leak-kinds=none")
	}
	if o.TrackOrigins {
		argv = append(argv, "--track-origins=yes")
	}
	return append(argv, o.Argv...)
}

// xmlFile is where valgrind writes its XML: the caller's path, or a file in
// a temporary directory that done removes.
func xmlFile(keep string) (path string, done func(), err error) {
	if keep != "" {
		abs, err := filepath.Abs(keep)
		if err != nil {
			return "", nil, fault.Usagef("memcheck: XML path %q: %v", keep, err)
		}
		os.Remove(abs) // a file left by an earlier run must not be read as this one's
		return abs, func() {}, nil
	}
	dir, err := scratch.Dir("", "memcheck")
	if err != nil {
		return "", nil, fmt.Errorf("memcheck: a temporary directory for valgrind's XML: %w", err)
	}
	return filepath.Join(dir.Path, "memcheck.xml"), func() { dir.Remove() }, nil
}

// readHead reads the first n bytes of a file and says its whole size.
func readHead(path string, n int64) ([]byte, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	data, err := io.ReadAll(io.LimitReader(f, n))
	return data, st.Size(), err
}

// conclude decides the outcome from the XML read and how valgrind ended.
func (r *Result) conclude(readErr error, projectDir string) {
	p := r.Process
	switch {
	case errors.Is(readErr, fs.ErrNotExist):
		r.Reason = "valgrind wrote no XML (" + ended(p) + ")" + stderrSaid(r.Stderr)
		return
	case readErr != nil:
		r.Reason = "valgrind's XML could not be read: " + readErr.Error()
		return
	}
	lg, err := Parse(r.XML, projectDir, r.Leaks)
	if err != nil {
		r.Reason = fmt.Sprintf("%v (%s)%s", err, ended(p), stderrSaid(r.Stderr))
		return
	}
	r.Errors, r.Seen, r.Signal = lg.Errors, lg.Seen, lg.Signal
	switch {
	case len(r.Errors) > 0:
		r.Outcome = Found
	case p.TimedOut:
		r.Reason = "timed out" + after(p.Timeout) + " before valgrind finished the program; no memory error seen until then"
	case p.Cancelled:
		r.Reason = "cancelled before valgrind finished the program; no memory error seen until then"
	case !lg.Finished || !lg.Whole:
		r.Reason = "valgrind's XML " + cutWords(lg, r.XMLSize) + " (" + ended(p) + ")" + stderrSaid(r.Stderr)
	case r.ErrorExit:
		r.Reason = fmt.Sprintf("valgrind exited with its error status %d, yet its XML holds no error (or the program exited with %d itself)", ErrorExitCode, ErrorExitCode)
	default:
		r.Outcome = Clean
	}
}

func cutWords(lg *Log, size int64) string {
	switch {
	case size > MaxXMLBytes:
		return fmt.Sprintf("is %d bytes: its first %d hold no error", size, MaxXMLBytes)
	case lg.Cut != "":
		return "is cut: " + lg.Cut
	}
	return "ends before the program finished"
}

// ended says how valgrind's process ended.
func ended(p *spawn.Result) string {
	switch {
	case p.Signaled:
		return "valgrind died of " + p.SignalName
	case p.Exited:
		return "valgrind exited with status " + strconv.Itoa(p.ExitCode)
	}
	return "valgrind did not end"
}

func after(d time.Duration) string {
	if d <= 0 {
		return " (the call's deadline)"
	}
	return " after " + d.String()
}

func stderrSaid(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	first, _, _ := strings.Cut(s, "\n")
	return ": " + clip(first)
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

// headWriter keeps the first max bytes written to it.
type headWriter struct {
	max int
	b   []byte
}

func (h *headWriter) Write(p []byte) (int, error) {
	if room := h.max - len(h.b); room > 0 {
		h.b = append(h.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func (h *headWriter) String() string { return string(h.b) }
