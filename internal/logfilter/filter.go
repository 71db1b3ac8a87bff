package logfilter

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/triage-dev/triage/internal/alarm"
	"github.com/triage-dev/triage/internal/gotestjson"
)

// ErrClosed is returned by Write after Close.
var ErrClosed = errors.New("logfilter: write after close")

// Filter is a streaming log filter. Feed it raw bytes with Write, in chunks
// of any size (lines may be split across writes); kept lines are written to
// the destination at the end of every Write call, and Close flushes the last
// partial line and the folded-duplicates trailer.
//
// A Filter is not safe for concurrent use: one goroutine writes, and Summary
// is read after Close (or between writes by the same goroutine).
type Filter struct {
	level Level
	out   *bufio.Writer
	err   error // first write error; sticky

	partial    []byte // an incomplete line carried to the next Write, at most MaxLineBytes
	partialCut bool   // the incomplete line was longer than MaxLineBytes
	scratch    []byte // ANSI-stripped copy of the current line

	// Context of the last diagnostic.
	ctx       ctxMode
	ctxLeft   int  // context lines still to write
	ctxWrite  bool // write the context (false in Minimal and for folded duplicates)
	ctxDrop   bool // drop the context even in Verbose: its diagnostic was folded
	ctxElided bool // the "…" marker was written

	// Failure list ("Testing failed:" and the like) being read.
	block      Kind
	blockItems int

	// locFor is 1 + the index of the diagnostic just recorded without a
	// location, which rustc prints on the next line; 0 when none waits.
	locFor int

	goEvent  gotestjson.Event // reused for `go test -json` lines
	held     heldLines        // t.Log output of the running Go test, written if it fails
	folds    folds
	detector detector
	sum      Summary
	warnings int // warnings recorded in sum.Diagnostics
	closed   bool
	// passes are the last lines after Summary.TestsRun, passN how many
	// were seen (passLine).
	passes [16]passCandidate
	passN  int
}

// New returns a Filter that writes the lines kept at level to w.
func New(level Level, w io.Writer) *Filter {
	return &Filter{level: level, out: bufio.NewWriterSize(w, 32<<10)}
}

// Write feeds raw log bytes. It always consumes all of p; the error is the
// destination's (or ErrClosed).
func (f *Filter) Write(p []byte) (int, error) {
	if f.closed {
		return 0, ErrClosed
	}
	n := len(p)
	f.sum.BytesIn += int64(n)
	if len(f.partial) > 0 || f.partialCut {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			f.appendPartial(p)
			return n, f.err
		}
		f.appendPartial(p[:i])
		f.line(f.partial)
		f.partial, f.partialCut = f.partial[:0], false
		p = p[i+1:]
	}
	for {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			break
		}
		f.line(p[:i])
		p = p[i+1:]
	}
	if len(p) > 0 {
		f.appendPartial(p)
	}
	f.flush()
	return n, f.err
}

func (f *Filter) appendPartial(p []byte) {
	room := MaxLineBytes - len(f.partial)
	if len(p) > room {
		p, f.partialCut = p[:room], true
	}
	f.partial = append(f.partial, p...)
}

// Close processes a final unterminated line, writes the folded-duplicates
// trailer and flushes. It returns the first error met writing.
func (f *Filter) Close() error {
	if f.closed {
		return f.err
	}
	if len(f.partial) > 0 {
		f.line(f.partial)
		f.partial = nil
	}
	f.closed = true
	f.writeFolded()
	f.flush()
	return f.err
}

// Summary returns what the filter has seen so far.
func (f *Filter) Summary() Summary {
	s := f.sum
	s.PassLine = f.passLine()
	s.Toolchain = f.detector.result()
	s.Diagnostics = append([]Diagnostic(nil), f.sum.Diagnostics...)
	return s
}

func (f *Filter) flush() {
	if err := f.out.Flush(); err != nil && f.err == nil {
		f.err = fmt.Errorf("writing filtered log: %w", err)
	}
}

// line handles one line without its '\n'.
func (f *Filter) line(raw []byte) {
	f.sum.Lines++
	if len(raw) > MaxLineBytes {
		raw = raw[:MaxLineBytes]
	}
	if n := len(raw); n > 0 && raw[n-1] == '\r' {
		raw = raw[:n-1]
	}
	line := raw
	if bytes.IndexByte(raw, 0x1b) >= 0 {
		f.scratch = stripANSI(f.scratch[:0], raw)
		line = f.scratch
	}
	f.detector.observe(line)
	if text, ok := goJSONText(line, &f.goEvent); ok {
		if text == nil {
			return
		}
		line = text
	}
	if f.locFor > 0 {
		f.takeLocation(line)
	}
	c := classify(line)
	// An echoed command line (the bulk of a verbose build log) quotes
	// flags and paths; it says nothing of how anything ended.
	if !c.noise {
		if h, ok := alarm.Match(line); ok {
			f.alarm(line, h)
			if !c.kind.MustKeep() && c.kind != KindSummary {
				c = alarmClass(h) // kept at every level
			}
		}
		if c.kind == KindOther || c.kind == KindProgress || c.kind == KindSummary {
			f.testsRun(line)
		}
	}

	if f.block != 0 {
		if f.blockItem(line) {
			return
		}
		f.block = 0
	}
	if f.ctx != ctxNone {
		if f.isContext(line, c) {
			f.contextLine(line, c)
			return
		}
		f.ctx = ctxNone
	}
	f.topLine(line, c)
}

// blockItem writes the indented items of a failure list; it reports false at
// the first line that ends the list.
func (f *Filter) blockItem(line []byte) bool {
	body, indent := trimIndent(line)
	if len(body) == 0 {
		return f.blockItems == 0 // a blank line right after the header
	}
	if indent == 0 {
		return false
	}
	f.blockItems++
	switch {
	case f.blockItems <= maxBlockItems:
		f.emit(line)
	case f.blockItems == maxBlockItems+1:
		f.emitString("\t… (more items omitted)")
	}
	return true
}

// isContext reports whether line belongs to the diagnostic before it.
func (f *Filter) isContext(line []byte, c class) bool {
	if c.noise {
		return false
	}
	body, indent := trimIndent(line)
	if f.ctx == ctxHash {
		return isHashContext(body, c)
	}
	if f.ctx == ctxAny {
		// A panic's stack or a sanitizer report runs until the next
		// top-level verdict.
		if indent == 0 && (c.kind >= KindWarning || c.kind == KindSummary) {
			return false
		}
		// The next test's progress ("Start 18: x", "18/19 Test #18: x ...
		// Passed") is not the crash's: a passing test's lines stay out.
		if c.kind == KindProgress || isCTestStart(body) {
			return false
		}
		return f.ctxLeft > 0 || f.level == Verbose && !f.ctxDrop
	}
	if len(body) == 0 {
		return false
	}
	if indent > 0 || c.kind == KindNote && c.block == 0 {
		return true
	}
	return isGutter(body)
}

// isCTestStart matches CTest's "Start 18: readme_examples".
func isCTestStart(b []byte) bool {
	rest, ok := bytes.CutPrefix(b, []byte("Start "))
	if !ok {
		return false
	}
	i := 0
	for i < len(rest) && (isDigit(rest[i]) || rest[i] == ' ') {
		i++
	}
	return i > 0 && i < len(rest) && rest[i] == ':'
}

// isGutter matches rustc/swiftc source gutters ("12 | code", "| ^^^") and
// bare caret lines.
func isGutter(b []byte) bool {
	i := 0
	for i < len(b) && isDigit(b[i]) {
		i++
	}
	if hasPrefix(b[i:], " |") || hasPrefix(b[i:], "|") {
		return true
	}
	return b[0] == '^' || hasPrefix(b, ">>> ")
}

func (f *Filter) contextLine(line []byte, c class) {
	if c.kind.MustKeep() || c.kind == KindSummary {
		f.emit(line) // an error inside a gutter is still an error
		return
	}
	if f.ctxDrop {
		return
	}
	if f.level == Verbose {
		f.emit(line)
		return
	}
	if !f.ctxWrite {
		return
	}
	if f.ctxLeft > 0 {
		f.ctxLeft--
		f.emitTruncated(line)
		return
	}
	if !f.ctxElided {
		f.ctxElided = true
		f.emitString("    …")
	}
}

func (f *Filter) topLine(line []byte, c class) {
	if c.noise {
		return
	}
	if c.block != 0 {
		f.block, f.blockItems = c.block, 0
	}
	folded := false
	before := len(f.sum.Diagnostics)
	if f.foldable(line, c) {
		folded = f.fold(line, c)
	} else {
		f.count(line, c)
	}
	if len(f.sum.Diagnostics) > before && f.sum.Diagnostics[before].File == "" {
		f.locFor = before + 1
	}
	keep := f.keep(c.kind)
	if c.ctx != ctxNone {
		f.ctx = c.ctx
		f.ctxLeft = maxContext
		if c.ctx == ctxAny {
			f.ctxLeft = 2 * maxContext
		}
		f.ctxWrite = keep && f.level >= Standard && !folded
		f.ctxDrop = folded
		f.ctxElided = false
	}
	if keep && !folded {
		f.emit(line)
	}
	f.holdGoTestOutput(line, c)
}

// takeLocation gives the diagnostic recorded on the line before the
// location rustc prints under it: "  --> src/lib.rs:485:29".
func (f *Filter) takeLocation(line []byte) {
	d := &f.sum.Diagnostics[f.locFor-1]
	f.locFor = 0
	body, _ := trimIndent(line)
	if !hasPrefix(body, "--> ") {
		return
	}
	if file, ln, col, _ := parseLocation(bytes.TrimSpace(body[4:])); file != "" {
		d.File, d.Line, d.Col = file, ln, col
		if d.Tool == "" {
			d.Tool = toolForFile([]byte(file))
		}
	}
}

// holdGoTestOutput keeps the indented output of a running Go test (in
// verbose and -json mode it comes before the verdict) and writes it after
// the test's "--- FAIL" line, so that Standard shows why the test failed.
func (f *Filter) holdGoTestOutput(line []byte, c class) {
	switch {
	case c.kind == KindProgress && (hasPrefix(line, "=== RUN") || hasPrefix(line, "=== CONT") || hasPrefix(line, "--- PASS") || hasPrefix(line, "--- SKIP")):
		f.held.reset(true)
	case c.kind == KindFailure && c.tool == "go" && hasPrefix(line, "--- FAIL"):
		if f.level == Standard {
			for _, l := range f.held.lines() {
				f.emitTruncated(l)
			}
		}
		f.held.reset(false)
	case f.held.active && c.kind == KindOther && len(line) > 0 && (line[0] == ' ' || line[0] == '\t'):
		f.held.add(line)
	}
}

func (f *Filter) keep(k Kind) bool {
	switch {
	case k.MustKeep(), k == KindSummary:
		return true
	case k == KindWarning:
		return f.level >= Standard
	}
	return f.level == Verbose
}

func (f *Filter) count(line []byte, c class) {
	if c.isAlarm() {
		return // kept, and in Summary.Alarm; not a diagnostic of its own
	}
	switch c.kind {
	case KindError:
		f.sum.Errors++
	case KindWarning:
		f.sum.Warnings++
	case KindFailure:
		f.sum.Failures++
	case KindCrash:
		f.sum.Crashes++
	case KindLinker:
		f.sum.LinkerErrors++
	default:
		return
	}
	if c.kind == KindWarning {
		if f.warnings >= MaxDiagnostics/4 {
			return
		}
		f.warnings++
	}
	if len(f.sum.Diagnostics) >= MaxDiagnostics {
		f.sum.DiagnosticsTruncated = true
		return
	}
	f.sum.Diagnostics = append(f.sum.Diagnostics, newDiagnostic(line, c))
}

func (f *Filter) emit(line []byte) {
	f.sum.KeptLines++
	f.sum.BytesOut += int64(len(line)) + 1
	f.out.Write(line)
	f.out.WriteByte('\n')
}

func (f *Filter) emitString(s string) {
	f.sum.KeptLines++
	f.sum.BytesOut += int64(len(s)) + 1
	f.out.WriteString(s)
	f.out.WriteByte('\n')
}

func (f *Filter) emitTruncated(line []byte) {
	if len(line) <= maxContextLen {
		f.emit(line)
		return
	}
	cut := maxContextLen
	for cut > 0 && !utf8.RuneStart(line[cut]) {
		cut--
	}
	f.sum.KeptLines++
	f.sum.BytesOut += int64(cut) + 5
	f.out.Write(line[:cut])
	f.out.WriteString(" …\n")
}

func (f *Filter) writeFolded() {
	rep := f.folds.repeated()
	if len(rep) == 0 {
		return
	}
	f.emitString(fmt.Sprintf("[logfilter] %d diagnostics were repeated; each was written once above:", len(rep)))
	for _, e := range rep {
		f.emitString(fmt.Sprintf("%s (×%d)", e.text, e.count))
	}
}

// stripANSI appends b without its ANSI escape sequences to dst.
func stripANSI(dst, b []byte) []byte {
	for i := 0; i < len(b); i++ {
		if b[i] != 0x1b {
			dst = append(dst, b[i])
			continue
		}
		if i+1 < len(b) && b[i+1] == '[' {
			// CSI: parameters, then one final byte in 0x40..0x7e.
			j := i + 2
			for j < len(b) && (b[j] < 0x40 || b[j] > 0x7e) {
				j++
			}
			i = j
			continue
		}
		i++ // two-byte escape
	}
	return dst
}
