package coredump

import (
	"bufio"
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/triage-dev/triage/internal/textclip"
)

// The legacy text report ("Process: name [pid]" ... "Thread 0 Crashed:" ...
// "Binary Images:") as written by ReportCrash before macOS 12, by
// PLCrashReporter, and inside old .ips files.

var (
	threadHeaderRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^Thread (\d+)( Crashed)?:(?::? *(.*))?$`) })
	threadNameRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^Thread (\d+) name:\s*(.*)$`) }) // iOS: a line before the thread's header
	frameLineRE    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\d+)\s+(.+?)\s+(0x[0-9a-fA-F]+)(?:\s+(.*))?$`) })
	frameSourceRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\s*\(([^()]+):(\d+)(?::\d+)?\)$`) })
	frameOffsetRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\s+\+\s+(\d+)$`) })
	nameAndPidRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(.*?)\s*\[(\d+)\]`) })
	signalInParens = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\((SIG[A-Z0-9]+)\)`) })
	signalWordRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\bSIG[A-Z]{2,6}\b`) })
	hexListRE      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`0x[0-9a-fA-F]+`) })
)

// legacySection says which kind of lines the parser is reading.
type legacySection int

const (
	inHeader legacySection = iota
	inASI
	inASIBacktrace
	inLastException
	inThread
	inOther // register dumps, VM regions, ...: skipped up to the next known header
)

type legacyParser struct {
	data    []byte
	rep     *Report
	section legacySection
	thread  *Thread
	line    int
	offset  int64
	seenASB bool
	// names holds "Thread N name:" lines until thread N's header arrives.
	names map[int]string
}

func parseLegacyCrash(data []byte) ([]*Report, error) {
	if !looksLikeLegacyCrash(data) {
		return nil, ErrUnrecognizedFormat
	}
	p := &legacyParser{data: data, rep: &Report{Format: "crash", CrashedThread: -1}}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		p.line++
		raw := sc.Text()
		if err := p.feed(strings.TrimRight(raw, "\r")); err != nil {
			return nil, err
		}
		p.offset += int64(len(raw)) + 1
	}
	if err := sc.Err(); err != nil {
		return nil, &ParseError{Format: "crash", Line: p.line + 1, Offset: p.offset, Err: ErrCorrupt, What: err.Error()}
	}
	p.endThread()
	if err := p.check(); err != nil {
		return nil, err
	}
	return []*Report{p.rep}, nil
}

// looksLikeLegacyCrash accepts text whose first header block has "Process:".
func looksLikeLegacyCrash(data []byte) bool {
	head := data[:min(len(data), 8<<10)]
	for _, ln := range strings.SplitN(string(head), "\n", 40) {
		if strings.HasPrefix(strings.TrimSpace(ln), "Process:") {
			return true
		}
	}
	return false
}

func (p *legacyParser) errorf(sentinel error, format string, args ...any) error {
	return &ParseError{Format: "crash", Line: p.line, Offset: p.offset, Err: sentinel, What: fmt.Sprintf(format, args...)}
}

func (p *legacyParser) feed(ln string) error {
	trimmed := strings.TrimSpace(ln)
	if m := threadNameRE().FindStringSubmatch(trimmed); m != nil {
		p.endThread()
		idx, _ := strconv.Atoi(m[1])
		if p.names == nil {
			p.names = make(map[int]string)
		}
		p.names[idx] = m[2]
		p.section = inHeader
		return nil
	}
	if m := threadHeaderRE().FindStringSubmatch(trimmed); m != nil {
		p.endThread()
		idx, _ := strconv.Atoi(m[1])
		p.thread = &Thread{Index: idx, Crashed: m[2] != ""}
		p.setThreadName(firstNonEmpty(m[3], p.names[idx]))
		p.section = inThread
		return nil
	}
	switch {
	case trimmed == "Binary Images:":
		p.endThread()
		p.section = inOther
		return nil
	case trimmed == "Application Specific Information:":
		p.endThread()
		p.section = inASI
		return nil
	case strings.HasPrefix(trimmed, "Application Specific Backtrace"):
		p.endThread()
		p.section = inASIBacktrace
		return nil
	case trimmed == "Last Exception Backtrace:":
		p.endThread()
		p.section = inLastException
		return nil
	}
	switch p.section {
	case inThread:
		return p.threadLine(trimmed)
	case inASI:
		if trimmed == "" {
			p.section = inHeader
		} else {
			p.rep.ASI = append(p.rep.ASI, trimmed)
		}
	case inASIBacktrace, inLastException:
		return p.exceptionLine(trimmed)
	default:
		p.headerLine(trimmed)
	}
	return nil
}

func (p *legacyParser) threadLine(s string) error {
	if s == "" {
		p.endThread()
		p.section = inHeader
		return nil
	}
	if s[0] < '0' || s[0] > '9' {
		// Something else started without a blank line ("Thread 1 crashed
		// with X86 Thread State", "Binary Images:" handled above, ...).
		p.endThread()
		p.section = inOther
		p.headerLine(s)
		return nil
	}
	f, err := parseFrameLine(s)
	if err != nil {
		return p.errorf(ErrCorrupt, "in thread %d: %v", p.thread.Index, err)
	}
	p.thread.Frames = append(p.thread.Frames, f)
	return nil
}

func (p *legacyParser) exceptionLine(s string) error {
	if s == "" {
		if len(p.rep.LastExceptionBacktrace) > 0 {
			p.seenASB = true
		}
		p.section = inHeader
		return nil
	}
	if p.seenASB { // keep only the first exception backtrace
		return nil
	}
	if strings.HasPrefix(s, "(") { // "(0x1a2b 0x3c4d ...)": addresses only
		for i, a := range hexListRE().FindAllString(s, -1) {
			addr, _ := strconv.ParseUint(a[2:], 16, 64)
			p.rep.LastExceptionBacktrace = append(p.rep.LastExceptionBacktrace, Frame{Index: i, Address: addr})
		}
		return nil
	}
	f, err := parseFrameLine(s)
	if err != nil {
		return p.errorf(ErrCorrupt, "in the exception backtrace: %v", err)
	}
	p.rep.LastExceptionBacktrace = append(p.rep.LastExceptionBacktrace, f)
	return nil
}

func (p *legacyParser) setThreadName(rest string) {
	rest = strings.TrimSpace(rest)
	if q, ok := strings.CutPrefix(rest, "Dispatch queue:"); ok {
		p.thread.Queue = strings.TrimSpace(q)
		return
	}
	p.thread.Name = rest
}

func (p *legacyParser) endThread() {
	if p.thread == nil {
		return
	}
	if p.thread.Crashed && p.rep.CrashedThread < 0 {
		p.rep.CrashedThread = p.thread.Index
	}
	p.rep.Threads = append(p.rep.Threads, *p.thread)
	p.thread = nil
}

func (p *legacyParser) headerLine(s string) {
	key, val, ok := strings.Cut(s, ":")
	if !ok {
		return
	}
	val = strings.TrimSpace(val)
	r := p.rep
	switch key {
	case "Incident Identifier":
		r.Incident = val
	case "Process":
		r.Process, r.Pid = nameAndPid(val)
	case "Path":
		r.Path = val
	case "Identifier":
		r.Identifier = val
	case "Version":
		r.Version = val
	case "Code Type":
		r.CodeType = val
	case "Parent Process":
		r.Parent, r.ParentPid = nameAndPid(val)
	case "Date/Time":
		r.Time = val
	case "OS Version":
		r.OS = val
	case "Hardware Model":
		r.Hardware = val
	case "Exception Type":
		r.ExceptionType, r.Signal = splitExceptionType(val)
	case "Exception Codes", "Exception Subtype":
		if r.ExceptionCodes == "" || key == "Exception Subtype" {
			r.ExceptionCodes = val
		}
	case "Crashed Thread", "Triggered by Thread":
		if n, err := strconv.Atoi(strings.Fields(val + " x")[0]); err == nil {
			r.CrashedThread = n
		}
	case "Termination Reason":
		p.termination(val)
	case "Termination Signal":
		if r.Signal == "" {
			r.Signal = signalWordRE().FindString(val)
		}
		r.TerminationReason = firstNonEmpty(r.TerminationReason, val)
	}
}

// termination reads "Namespace SIGNAL, Code 0xb" and its variants
// ("Namespace SIGNAL, Code 6 Abort trap: 6", "SIGNAL, Code 0xb").
func (p *legacyParser) termination(val string) {
	r := p.rep
	rest, _ := strings.CutPrefix(val, "Namespace ")
	ns, code, ok := strings.Cut(rest, ",")
	if !ok {
		r.TerminationReason = val
		return
	}
	r.TerminationNamespace = strings.TrimSpace(ns)
	code = strings.TrimSpace(code)
	code, _ = strings.CutPrefix(code, "Code ")
	fields := strings.SplitN(code, " ", 2)
	r.TerminationCode = fields[0]
	if len(fields) == 2 {
		r.TerminationReason = strings.TrimSpace(fields[1])
	}
}

func (p *legacyParser) check() error {
	r := p.rep
	if r.CrashedThread >= 0 && len(r.Threads) > 0 && r.Crashed() == nil {
		return &ParseError{Format: "crash", Line: p.line, Offset: p.offset, Err: ErrTruncated,
			What: fmt.Sprintf("header names crashed thread %d but the report has no frames for it", r.CrashedThread)}
	}
	if r.CrashedThread >= 0 && len(r.Threads) == 0 && r.ExceptionType != "" {
		return &ParseError{Format: "crash", Line: p.line, Offset: p.offset, Err: ErrTruncated,
			What: "report ends before any \"Thread N:\" backtrace"}
	}
	return nil
}

// splitExceptionType reads "EXC_BAD_ACCESS (SIGSEGV)" or a bare "SIGSEGV".
func splitExceptionType(val string) (exc, sig string) {
	if m := signalInParens().FindStringSubmatch(val); m != nil {
		return strings.TrimSpace(val[:strings.Index(val, "(")]), m[1]
	}
	if strings.HasPrefix(val, "SIG") {
		return val, signalWordRE().FindString(val)
	}
	return val, ""
}

func nameAndPid(val string) (string, int) {
	m := nameAndPidRE().FindStringSubmatch(val)
	if m == nil {
		return val, 0
	}
	pid, _ := strconv.Atoi(m[2])
	return m[1], pid
}

// parseFrameLine reads one backtrace line of a text report:
//
//	0   libsystem_kernel.dylib   0x00007fff61bc6c2a __pthread_kill + 10
//	7   ReportCrash              0x000000010b8d9514 0x10b8b8000 + 136468
//	3   asi                      0x0000000104a3bf2c main + 24 (asi.m:12)
func parseFrameLine(s string) (Frame, error) {
	m := frameLineRE().FindStringSubmatch(s)
	if m == nil {
		return Frame{}, fmt.Errorf("expected \"INDEX IMAGE 0xADDRESS SYMBOL + OFFSET\", found %q", truncateForError(s))
	}
	idx, _ := strconv.Atoi(m[1])
	addr, err := strconv.ParseUint(m[3][2:], 16, 64)
	if err != nil {
		return Frame{}, fmt.Errorf("frame address %q: %v", m[3], err)
	}
	f := Frame{Index: idx, Module: m[2], Address: addr}
	rest := strings.TrimSpace(m[4])
	if sm := frameSourceRE().FindStringSubmatch(rest); sm != nil {
		f.File = sm[1]
		f.Line, _ = strconv.Atoi(sm[2])
		rest = rest[:len(rest)-len(sm[0])]
	}
	rest, f.Inlined = strings.CutSuffix(rest, " [inlined]")
	if om := frameOffsetRE().FindStringSubmatch(rest); om != nil {
		f.Offset, _ = strconv.ParseUint(om[1], 10, 64)
		rest = rest[:len(rest)-len(om[0])]
	}
	rest = strings.TrimSpace(rest)
	if !strings.HasPrefix(rest, "0x") { // "0xBASE + off" means no symbol
		f.Function = rest
	}
	return f, nil
}

// parseFrameLines reads a block of frame lines, skipping any that do not parse.
func parseFrameLines(text string) []Frame {
	var out []Frame
	for ln := range strings.SplitSeq(text, "\n") {
		if f, err := parseFrameLine(strings.TrimSpace(ln)); err == nil {
			out = append(out, f)
		}
	}
	return out
}

func truncateForError(s string) string { return textclip.String(s, 80) }
