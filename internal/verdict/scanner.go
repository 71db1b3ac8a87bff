package verdict

import (
	"bytes"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/triage-dev/triage/internal/crashsite"
)

// MaxLineKept bounds the text kept from any one line (indicator lines, the
// last line), so a Scanner's memory does not depend on the output.
const MaxLineKept = 300

// frameWindow is how many lines after a crash indicator we read its stack
// trace for; maxTraceFrames how many of its frames we keep.
const (
	frameWindow    = 64
	maxTraceFrames = 32
)

var (
	packOnce    sync.Once
	packMatcher *matcher
)

func compiledPatterns() *matcher {
	packOnce.Do(func() {
		keys := make([]string, len(patterns()))
		for i, p := range patterns() {
			keys[i] = p.key
		}
		packMatcher = newMatcher(keys)
	})
	return packMatcher
}

// Scanner watches output line by line for crash indicators. Feed it every
// line (or use it as an io.Writer, e.g. as spawn.Spec.Combined). Its memory
// is bounded: each pattern is kept once (first line, count), lines are kept
// truncated to MaxLineKept, and nothing else is retained.
//
// A Scanner is not safe for concurrent use; spawn's Combined sink already
// serialises writes.
type Scanner struct {
	m        *matcher
	lineNo   int
	bytes    int64
	nonBlank int
	partial  []byte // Write: an incomplete line, at most MaxLineKept*4 bytes kept

	found    map[int]*Indicator // pattern index -> indicator
	order    []int              // pattern indexes in order of first match
	claimed  string             // first success claim line
	last     []byte             // last non-blank line, at most MaxLineKept+1 bytes
	evidence []Evidence

	trace      []crashsite.Frame // the first crash trace's frames, at most maxTraceFrames
	frameStyle frameStyle        // reading a trace on following lines
	frameUntil int               // line number after which we stop reading
	goFunc     string            // frameGoTrace: function line seen, file line next

	appendNext *Indicator // withNext: the indicator awaiting its message line

	hits []int // scratch: patterns whose key is in the current line
}

// NewScanner returns a Scanner for one run's output.
func NewScanner() *Scanner {
	return &Scanner{
		m:     compiledPatterns(),
		found: make(map[int]*Indicator),
	}
}

// Write splits p into lines and feeds them. Bytes of a line beyond what
// any pattern needs are dropped, so a line without newlines cannot grow
// memory. It never fails.
func (s *Scanner) Write(p []byte) (int, error) {
	n := len(p)
	s.bytes += int64(n)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			s.keepPartial(p)
			break
		}
		if len(s.partial) > 0 {
			s.keepPartial(p[:i])
			s.scan(s.partial)
			s.partial = s.partial[:0]
		} else {
			s.scan(p[:i])
		}
		p = p[i+1:]
	}
	return n, nil
}

// partialMax is how much of an overlong line Write keeps: well beyond any
// key and any line the verdict quotes.
const partialMax = 4 * MaxLineKept

func (s *Scanner) keepPartial(p []byte) {
	if room := partialMax - len(s.partial); room > 0 {
		s.partial = append(s.partial, p[:min(room, len(p))]...)
	}
}

// Flush scans a final line that had no newline.
func (s *Scanner) Flush() {
	if len(s.partial) > 0 {
		s.scan(s.partial)
		s.partial = s.partial[:0]
	}
}

// Feed scans one line, without its newline.
func (s *Scanner) Feed(line []byte) {
	s.bytes += int64(len(line)) + 1
	s.scan(line)
}

func (s *Scanner) scan(line []byte) {
	s.lineNo++
	line = bytes.TrimSuffix(line, []byte("\r"))
	if len(bytes.TrimSpace(line)) == 0 {
		if s.frameStyle != frameNone && len(s.trace) > 0 {
			s.frameStyle = frameNone // a blank line ends the first trace
		}
		return
	}
	s.nonBlank++
	s.last = append(s.last[:0], line[:min(len(line), MaxLineKept+1)]...)
	if in := s.appendNext; in != nil {
		// The message line; the JVM frames its report in "#" lines.
		if msg := bytes.TrimSpace(bytes.TrimLeft(line, "# \t")); len(msg) > 0 {
			s.appendNext = nil
			in.Line = keep(append(append([]byte(in.Line), ' '), msg...))
		}
	}

	if s.frameStyle != frameNone {
		s.lookForFrame(line)
	}
	s.hits = s.m.scan(line, s.hits[:0])
	slices.Sort(s.hits) // pattern order decides ties on one line
	for _, k := range s.hits {
		p := &patterns()[k]
		if p.re != nil && !p.re.Match(line) {
			continue
		}
		s.record(k, p, line)
	}
}

func (s *Scanner) record(k int, p *pattern, line []byte) {
	if p.sev == sevSuccess {
		s.claimed = keep(line) // the last claim is the one that counts
		return
	}
	if in := s.found[k]; in != nil {
		in.Count++
		return
	}
	s.found[k] = &Indicator{Pack: p.pack, Name: p.name, Type: p.typ, Crash: p.sev == sevCrash,
		Line: keep(line), LineNo: s.lineNo, Count: 1}
	s.order = append(s.order, k)
	if p.withNext {
		s.appendNext = s.found[k]
	}
	if p.name == "JVM crash log" {
		if m := jvmCrashLog().FindSubmatch(line); m != nil {
			s.evidence = append(s.evidence, Evidence{Kind: "crash_report", Path: string(m[1]), Summary: "JVM fatal error log"})
		}
	}
	if len(s.trace) > 0 || s.frameStyle != frameNone || p.frame == frameNone {
		return
	}
	if p.frame == frameInLine {
		if f := frameFromLine(p.frameRe, line); f != nil {
			s.trace = append(s.trace, *f)
		}
		return
	}
	s.frameStyle, s.frameUntil, s.goFunc = p.frame, s.lineNo+frameWindow, ""
}

var (
	goFuncLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*(\S+)\([^()]*\)$`) })
	goFileLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s+(\S+\.go):(\d+)`) })
)

// lookForFrame reads one line of the trace that follows a crash indicator.
// Every frame is kept (up to maxTraceFrames): which one the crash is
// reported at is crashsite's decision, made once the project is known.
func (s *Scanner) lookForFrame(line []byte) {
	if s.lineNo > s.frameUntil || len(s.trace) >= maxTraceFrames {
		s.frameStyle = frameNone
		return
	}
	var fn, file string
	var n int
	switch s.frameStyle {
	case frameGoTrace:
		if m := goFuncLine().FindSubmatch(line); m != nil {
			s.goFunc = string(m[1])
			return
		}
		m := goFileLine().FindSubmatch(line)
		if m == nil || s.goFunc == "" {
			return
		}
		fn, file = s.goFunc, string(m[1])
		n, _ = strconv.Atoi(string(m[2]))
		s.goFunc = "" // "created by F in goroutine N" has a file line of its own
	case frameSanStack, frameTSanStack:
		// crashsite reads both shapes, and C++ and Rust names with spaces.
		f, ok := crashsite.SanitizerFrame(string(line))
		if !ok || !f.HasSource() {
			return
		}
		fn, file, n = f.Function, f.File, f.Line
	}
	s.trace = append(s.trace, crashsite.Frame{Function: keep([]byte(fn)), File: keep([]byte(file)), Line: n})
}

func frameFromLine(re *regexp.Regexp, line []byte) *crashsite.Frame {
	m := re.FindSubmatch(line)
	if m == nil {
		return nil
	}
	f := &crashsite.Frame{}
	for i, name := range re.SubexpNames() {
		if m[i] == nil {
			continue
		}
		switch name {
		case "file":
			f.File = string(m[i])
		case "line", "line2":
			f.Line, _ = strconv.Atoi(string(m[i]))
		case "fn":
			f.Function = string(m[i])
		}
	}
	if f.File == "" {
		return nil
	}
	return f
}

// keep copies a line for retention, truncated to MaxLineKept bytes on a
// rune boundary.
func keep(line []byte) string {
	if len(line) > MaxLineKept {
		cut := MaxLineKept
		for cut > 0 && !utf8.RuneStart(line[cut]) {
			cut--
		}
		return strings.ToValidUTF8(string(line[:cut]), "\uFFFD") + "…"
	}
	return strings.ToValidUTF8(string(line), "\uFFFD")
}

// Indicators returns the patterns that fired, in order of first match.
func (s *Scanner) Indicators() []Indicator {
	out := make([]Indicator, 0, len(s.order))
	for _, k := range s.order {
		out = append(out, *s.found[k])
	}
	return out
}

// Lines is the number of lines seen; NonBlank those with any non-space.
func (s *Scanner) Lines() int    { return s.lineNo }
func (s *Scanner) NonBlank() int { return s.nonBlank }

// Bytes is the number of output bytes seen.
func (s *Scanner) Bytes() int64 { return s.bytes }

// Frame is the frame the output's first crash trace is reported at, by
// crashsite's rule with no project directory known; nil when the output
// shows no trace.
func (s *Scanner) Frame() *Frame { return s.CrashFrame("") }

// CrashFrame is the frame the output's first crash trace is reported at:
// the first in the code of the project in projectDir ("" when not known),
// by crashsite's rule; nil when the output shows no trace.
func (s *Scanner) CrashFrame(projectDir string) *Frame {
	i := crashsite.Pick(s.trace, projectDir)
	if i < 0 {
		return nil
	}
	f := s.trace[i]
	return &Frame{Function: f.Function, File: f.File, Line: f.Line}
}

// ClaimedSuccess is the last line where the output claimed success.
func (s *Scanner) ClaimedSuccess() string { return s.claimed }

// LastLine is the last non-blank line, truncated.
func (s *Scanner) LastLine() string { return keep(s.last) }

// Evidence is what the output pointed at (a JVM hs_err log, ...).
func (s *Scanner) Evidence() []Evidence { return s.evidence }
