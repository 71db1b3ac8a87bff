package coredump

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Report is an Apple crash report (.ips or legacy .crash text), reduced to
// what explains a crash. Fields a report does not carry stay zero.
type Report struct {
	Format     string `json:"format"` // "ips", "ips-legacy" (JSON header, text body) or "crash"
	BugType    string `json:"bug_type,omitempty"`
	Incident   string `json:"incident,omitempty"`
	Process    string `json:"process,omitempty"`
	Pid        int    `json:"pid,omitempty"`
	Path       string `json:"path,omitempty"`
	Identifier string `json:"identifier,omitempty"`
	Version    string `json:"version,omitempty"`
	Parent     string `json:"parent,omitempty"`
	ParentPid  int    `json:"parent_pid,omitempty"`
	OS         string `json:"os,omitempty"`
	Hardware   string `json:"hardware,omitempty"`
	CodeType   string `json:"code_type,omitempty"`
	Time       string `json:"time,omitempty"` // as written in the report

	ExceptionType  string `json:"exception_type,omitempty"`  // "EXC_BAD_ACCESS"
	ExceptionCodes string `json:"exception_codes,omitempty"` // "KERN_INVALID_ADDRESS at 0x8"
	Signal         string `json:"signal,omitempty"`          // "SIGSEGV"

	TerminationNamespace string `json:"termination_namespace,omitempty"` // "SIGNAL"
	TerminationCode      string `json:"termination_code,omitempty"`
	TerminationReason    string `json:"termination_reason,omitempty"` // indicator / free text

	// CrashedThread indexes Threads' Index values; -1 when the report names none.
	CrashedThread int      `json:"crashed_thread"`
	Threads       []Thread `json:"threads,omitempty"`
	// ASI holds the "Application Specific Information" messages, such as an
	// uncaught NSException's reason or "abort() called".
	ASI []string `json:"asi,omitempty"`
	// LastExceptionBacktrace is the backtrace of the uncaught exception, when
	// the report recorded one (it says where the exception was thrown, which
	// the crashed thread, already in abort, no longer shows).
	LastExceptionBacktrace []Frame `json:"last_exception_backtrace,omitempty"`
}

// Thread is one thread of a crash report.
type Thread struct {
	Index   int     `json:"index"`
	Name    string  `json:"name,omitempty"`
	Queue   string  `json:"queue,omitempty"`
	Crashed bool    `json:"crashed,omitempty"`
	Frames  []Frame `json:"frames,omitempty"`
}

// Crashed returns the thread the report says crashed, or nil.
func (r *Report) Crashed() *Thread {
	for i := range r.Threads {
		if r.Threads[i].Crashed {
			return &r.Threads[i]
		}
	}
	for i := range r.Threads {
		if r.Threads[i].Index == r.CrashedThread {
			return &r.Threads[i]
		}
	}
	return nil
}

// TopFrame returns frame 0 of the crashed thread, as reported (which may be
// unsymbolicated, or inside abort for an uncaught exception).
func (r *Report) TopFrame() (Frame, bool) {
	t := r.Crashed()
	if t == nil || len(t.Frames) == 0 {
		return Frame{}, false
	}
	return t.Frames[0], true
}

// Errors a caller may branch on. Parse failures wrap one of them in a
// *ParseError that says where the input went wrong.
var (
	// ErrUnrecognizedFormat: the input is not a format this reader knows.
	ErrUnrecognizedFormat = errors.New("unrecognized format")
	// ErrEmpty: the input has no content.
	ErrEmpty = errors.New("empty input")
	// ErrTruncated: the input ends before the structure it started is complete.
	ErrTruncated = errors.New("truncated")
	// ErrCorrupt: the input has the right shape at first but breaks its own syntax.
	ErrCorrupt = errors.New("corrupt")
	// ErrNotCrashReport: a well-formed Apple diagnostic report of another kind
	// (hang, spin, jetsam, ...), which has no crashed thread to show.
	ErrNotCrashReport = errors.New("not a crash report")
	// ErrTooLarge: the input exceeds MaxReportSize.
	ErrTooLarge = errors.New("too large")
)

// MaxReportSize bounds what ParseReport reads; real reports are well under 1 MiB.
const MaxReportSize = 32 << 20

// ParseError locates a parse failure. Err is one of the package's sentinel
// errors, so errors.Is(err, ErrTruncated) works through it.
type ParseError struct {
	Format string // "ips", "crash", "elf core", ...
	Line   int    // 1-based; 0 when not meaningful
	Offset int64  // byte offset from the start of the input
	What   string // what was expected or found
	Err    error
}

func (e *ParseError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "parsing %s", e.Format)
	if e.Line > 0 {
		fmt.Fprintf(&b, " at line %d (byte %d)", e.Line, e.Offset)
	} else {
		fmt.Fprintf(&b, " at byte %d", e.Offset)
	}
	fmt.Fprintf(&b, ": %v", e.Err)
	if e.What != "" {
		fmt.Fprintf(&b, ": %s", e.What)
	}
	return b.String()
}

func (e *ParseError) Unwrap() error { return e.Err }

// reportReaders are tried in order; each returns ErrUnrecognizedFormat
// (unwrapped) when the input is not its format, so the next one is tried.
var reportReaders = []func([]byte) ([]*Report, error){
	parseIPS,
	parseLegacyCrash,
}

// ParseReport reads one Apple crash report in any supported format. When the
// input holds several concatenated reports, it returns the first crash
// report among them; use ParseReports for all.
func ParseReport(r io.Reader) (*Report, error) {
	reports, err := ParseReports(r)
	if err != nil {
		return nil, err
	}
	return reports[0], nil
}

// ParseReports reads every report in r (a .ips file may concatenate several).
// It returns at least one report or an error.
func ParseReports(r io.Reader) ([]*Report, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxReportSize+1))
	if err != nil {
		return nil, fmt.Errorf("reading crash report: %w", err)
	}
	if len(data) > MaxReportSize {
		return nil, fmt.Errorf("reading crash report: %w: over %d bytes", ErrTooLarge, MaxReportSize)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("reading crash report: %w", ErrEmpty)
	}
	for _, read := range reportReaders {
		reports, err := read(data)
		if errors.Is(err, ErrUnrecognizedFormat) && !isParseError(err) {
			continue
		}
		return reports, err
	}
	return nil, fmt.Errorf("reading crash report: %w: neither .ips (JSON header line) nor .crash text (\"Process:\" header)", ErrUnrecognizedFormat)
}

func isParseError(err error) bool {
	var pe *ParseError
	return errors.As(err, &pe)
}

// lineAt returns the 1-based line number of byte offset off in data.
func lineAt(data []byte, off int64) int {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	if off < 0 {
		off = 0
	}
	return bytes.Count(data[:off], []byte{'\n'}) + 1
}
