// Package logfilter reduces build and test logs to the lines that matter,
// as they stream.
//
// A [Filter] is an io.Writer: raw bytes from a compiler, build system or test
// runner go in, and the kept lines come out on the writer given to [New]. Each
// line is classified by cheap byte checks (first bytes, the words around each
// ':', a couple of literal searches) into a [Kind]; regular expressions are
// never run per line. What is kept depends on the [Level]:
//
//   - Minimal keeps the must-keep lines — errors, failures, crash indicators,
//     linker errors — and tool summaries ("** TEST FAILED **", "Executed 3
//     tests, with 1 failure", "test result: FAILED. ...").
//   - Standard adds warnings and the context attached to a diagnostic: the
//     source and caret lines of gcc/clang/swiftc, rustc's "-->" and gutter
//     lines, notes, the stack after a panic.
//   - Verbose keeps every line except pure noise (echoed compiler command
//     lines, environment dumps, simulator logging spam).
//
// The invariant, tested over every fixture log: every must-keep line of the raw
// log appears verbatim (ANSI colour removed) in the output at every level.
// Items of a failure list ("Testing failed:", "The following build commands
// failed:", "Failing tests:", "Undefined symbols for architecture ...") are
// must-keep too.
//
// A diagnostic seen again (same text) is folded: it is not written again, and
// [Filter.Close] appends a "folded duplicates" section with each repeated line
// and its count, "(×3)".
//
// Memory is bounded whatever the log size: at most one partial line (capped
// at [MaxLineBytes]), a bounded duplicate table and a bounded diagnostic list.
package logfilter

import (
	"errors"
	"fmt"
	"strings"

	"github.com/triage-dev/triage/internal/alarm"
)

// Level selects how much of a log a [Filter] keeps.
type Level int

const (
	// Minimal keeps errors, failures, crashes, linker errors and summaries.
	Minimal Level = iota
	// Standard adds warnings and the context lines attached to diagnostics.
	Standard
	// Verbose keeps everything but noise.
	Verbose
)

// ErrUnknownLevel is returned by [ParseLevel] for a name it does not know.
var ErrUnknownLevel = errors.New("unknown log level")

// ParseLevel parses "minimal", "standard" or "verbose" (case-insensitive).
// The empty string means Standard.
func ParseLevel(s string) (Level, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "minimal":
		return Minimal, nil
	case "standard", "":
		return Standard, nil
	case "verbose":
		return Verbose, nil
	}
	return Standard, fmt.Errorf("parsing level %q: %w (want minimal, standard or verbose)", s, ErrUnknownLevel)
}

func (l Level) String() string {
	switch l {
	case Minimal:
		return "minimal"
	case Standard:
		return "standard"
	case Verbose:
		return "verbose"
	}
	return fmt.Sprintf("Level(%d)", int(l))
}

// Kind is what a classified line is.
type Kind uint8

const (
	KindOther    Kind = iota // anything else
	KindProgress             // a step in progress: "Compiling x", "Test Case ... started"
	KindSummary              // a tool's own summary: "** BUILD SUCCEEDED **", "Executed 3 tests"
	KindNote                 // "note:" diagnostics
	KindWarning              // "warning:" diagnostics
	KindError                // compiler and tool errors
	KindFailure              // test failures and failed builds
	KindCrash                // crash indicators: panics, signals, sanitizer reports, runner crashes
	KindLinker               // undefined symbols and other link errors
)

var kindNames = [...]string{"other", "progress", "summary", "note", "warning", "error", "failure", "crash", "linker"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// MustKeep reports whether lines of this kind are kept at every level.
func (k Kind) MustKeep() bool { return k >= KindError }

// Classify returns the Kind of one line (no trailing newline; ANSI colour is
// not removed). Callers outside a Filter use it to pick the lines worth showing
// first, e.g. Classify(l).MustKeep().
func Classify(line []byte) Kind { return classify(line).kind }

// Diagnostic is one classified line worth reporting, with its location when
// the line carries one.
type Diagnostic struct {
	Kind    Kind   `json:"kind"`
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Col     int    `json:"col,omitempty"`
	Message string `json:"message"`
	Tool    string `json:"tool,omitempty"` // gcc, go, rustc, cmake, make, ld, xcodebuild, xctest, swift-testing, ...
	Count   int    `json:"count"`          // occurrences, > 1 when duplicates were folded
}

// Summary is what a [Filter] saw.
type Summary struct {
	Toolchain    string       `json:"toolchain"` // as [Detect] names it
	Lines        int64        `json:"lines"`
	KeptLines    int64        `json:"kept_lines"`
	BytesIn      int64        `json:"bytes_in"`
	BytesOut     int64        `json:"bytes_out"`
	Errors       int          `json:"errors"`
	Warnings     int          `json:"warnings"`
	Failures     int          `json:"failures"`
	Crashes      int          `json:"crashes"`
	LinkerErrors int          `json:"linker_errors"`
	Folded       int          `json:"folded"` // duplicate diagnostic lines not written again
	Diagnostics  []Diagnostic `json:"diagnostics,omitempty"`
	// DiagnosticsTruncated is set when more diagnostics were seen than
	// [MaxDiagnostics].
	DiagnosticsTruncated bool `json:"diagnostics_truncated,omitempty"`
	// Alarms counts the lines that hold a word of the alarm table (a
	// crash, kill, timeout or failure in any runner's words); Alarm is the
	// first of the most severe class. Such lines are kept at every level.
	Alarms int    `json:"alarms,omitempty"`
	Alarm  *Alarm `json:"alarm,omitempty"`
	// TestsRun is the first line that says tests run, in any runner's
	// words ("collected 3 items", "test_a ... ok"); PassLine the last
	// after it that is a closing count line saying tests passed ("3
	// passed in 0.12s"), nil when none (alarm.TestsRun, PassSummary).
	TestsRun *Alarm `json:"tests_run,omitempty"`
	PassLine *Alarm `json:"pass_line,omitempty"`
}

// Alarm is one line that holds a word of the alarm table.
type Alarm struct {
	Line  int64       `json:"line"` // 1-based, in the raw log
	Text  string      `json:"text"` // the line, bounded
	Word  string      `json:"word"` // the table's word: "killed by signal"
	Class alarm.Class `json:"class"`
}

// Limits that keep a Filter's memory bounded.
const (
	MaxLineBytes   = 64 << 10 // longer lines are cut here
	MaxDiagnostics = 100      // diagnostics kept in Summary
	maxContext     = 8        // context lines kept after one diagnostic
	maxContextLen  = 400      // bytes kept of one context line
	maxBlockItems  = 1000     // items kept from one failure list
	maxDedupe      = 4096     // distinct diagnostics remembered for folding
	maxFoldedText  = 512      // bytes of a folded line remembered for the trailer
)

// MarshalText makes a Kind appear by name in JSON.
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }
