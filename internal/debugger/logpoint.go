package debugger

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Logpoints: a breakpoint with a log message (BreakpointSpec.LogMessage,
// DAP's logMessage syntax: text with {expressions}) records a line per hit
// in the session's event log and never stops the target. The log is a JSONL
// file in the session's directory (LogBookFile), one LogHit a line, written
// by the backend (a DAP adapter's output events) or by the debugger itself
// (lldb's Python), and bounded by LogBookMaxBytes.

// LogBookFile is the event log's name in the session's directory.
const LogBookFile = "logpoints.jsonl"

// LogBookMaxBytes bounds the event log; hits past it are not recorded,
// and a read says so. A hit of a short message takes about 110 bytes:
// 1 MiB held 9,413 of a loop's 10,000 (BenchmarkLogpoint10000).
const LogBookMaxBytes = 4 << 20

// MaxHitMessage bounds one hit's message (a value may be a whole string
// or array); the cut is marked with "…".
const MaxHitMessage = 1024

// lastHits is how many of the newest hits a read returns in full.
const lastHits = 3

// LogHit is one logpoint hit.
type LogHit struct {
	At         time.Time `json:"at"`
	Breakpoint int       `json:"bp"`
	Location   string    `json:"location,omitempty"`
	Message    string    `json:"message"`
}

func (h LogHit) String() string {
	s := fmt.Sprintf("bp %d", h.Breakpoint)
	if h.Location != "" {
		s += " at " + h.Location
	}
	return s + ": " + h.Message
}

// LogPart is a piece of a log message: literal text, or an expression to
// evaluate in the hit's frame.
type LogPart struct {
	Text string `json:"text"`
	Expr bool   `json:"expr,omitempty"`
}

// ParseLogMessage splits a log message into its parts: {expr} is an
// expression (braces nest within it, as in DAP's and dlv's reading), the
// rest is text. An unbalanced brace or an empty {} is an error.
func ParseLogMessage(msg string) ([]LogPart, error) {
	var parts []LogPart
	var cur strings.Builder
	depth := 0
	flush := func() {
		if cur.Len() > 0 {
			parts = append(parts, LogPart{Text: cur.String()})
		}
		cur.Reset()
	}
	for _, r := range msg {
		switch {
		case r == '{' && depth == 0:
			flush()
			depth = 1
			continue
		case r == '{':
			depth++
		case r == '}' && depth == 0:
			return nil, fmt.Errorf("log message %q: a } without its {", msg)
		case r == '}' && depth == 1:
			if strings.TrimSpace(cur.String()) == "" {
				return nil, fmt.Errorf("log message %q: an empty {}", msg)
			}
			parts = append(parts, LogPart{Text: strings.TrimSpace(cur.String()), Expr: true})
			cur.Reset()
			depth = 0
			continue
		case r == '}':
			depth--
		}
		cur.WriteRune(r)
	}
	if depth != 0 {
		return nil, fmt.Errorf("log message %q: a { without its }", msg)
	}
	flush()
	return parts, nil
}

// LogpointBackend is a backend that keeps logpoints' hits; its book is
// nil until a logpoint is set.
type LogpointBackend interface {
	Logpoints() *LogBook
}

// LogpointsOf is a session's event log of logpoint hits: nil when its
// backend keeps none or no logpoint was set.
func LogpointsOf(b Backend) *LogBook {
	if lb, ok := Unwrap(b).(LogpointBackend); ok {
		return lb.Logpoints()
	}
	return nil
}

// LogBook is a session's event log of logpoint hits, and how far the
// caller has been told of it.
type LogBook struct {
	path string
	mu   sync.Mutex
	size int64 // bytes written by Append
	told int64 // bytes read by TakeNew
	full bool  // Append refused a hit: the book is full
}

// NewLogBook makes the event log in dir (the file is created at the first hit).
func NewLogBook(dir string) *LogBook {
	return &LogBook{path: filepath.Join(dir, LogBookFile)}
}

// Path is the JSONL file.
func (l *LogBook) Path() string { return l.path }

// Append records a hit; past LogBookMaxBytes it is dropped.
func (l *LogBook) Append(h LogHit) error {
	line, err := json.Marshal(h)
	if err != nil {
		return err
	}
	line = append(line, '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.size+int64(len(line)) > LogBookMaxBytes {
		l.full = true
		return nil
	}
	f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	n, err := f.Write(line)
	l.size += int64(n)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// LogNews is what TakeNew read: the hits since the last read.
type LogNews struct {
	New  int      // hits since the last read
	Last []LogHit // the newest of them, at most lastHits
	Full bool     // the log reached LogBookMaxBytes: later hits are not recorded
}

// TakeNew reads the hits written since the last TakeNew (whole lines only:
// a line still being written waits for the next read).
func (l *LogBook) TakeNew() (LogNews, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	f, err := os.Open(l.path)
	if errors.Is(err, os.ErrNotExist) {
		return LogNews{}, nil
	} else if err != nil {
		return LogNews{}, err
	}
	defer f.Close()
	if _, err := f.Seek(l.told, io.SeekStart); err != nil {
		return LogNews{}, err
	}
	var news LogNews
	r := bufio.NewReader(io.LimitReader(f, LogBookMaxBytes))
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			break // EOF, or a line not yet ended
		}
		l.told += int64(len(line))
		news.New++
		var h LogHit
		if json.Unmarshal(bytes.TrimSpace(line), &h) != nil {
			h.Message = "(unreadable event log line) " + string(bytes.TrimSpace(line))
		}
		news.Last = append(news.Last, h)
		if len(news.Last) > lastHits {
			news.Last = news.Last[1:]
		}
	}
	news.Full = l.full || l.told+512 >= LogBookMaxBytes
	return news, nil
}

// Contents is the whole log, for storing as an output.
func (l *LogBook) Contents() ([]byte, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	f, err := os.Open(l.path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, LogBookMaxBytes))
}

//go:embed logpoint.py
var logpointPy string

// LLDBLogpointLoad is the lldb command defining logpoint.py's functions in
// lldb's interpreter (one line); defining them again keeps the logpoints.
var LLDBLogpointLoad = sync.OnceValue(func() string {
	return "script exec(__import__('base64').b64decode('" + base64.StdEncoding.EncodeToString([]byte(logpointPy)) + "').decode(), globals())"
})

// LLDBLogpointAdd registers lldb's breakpoint lldbID as our logpoint id,
// logging msg's parts to path; LLDBLogpointCommand then makes the
// breakpoint call it and go on.
func LLDBLogpointAdd(lldbID, id int, path, msg string) (string, error) {
	parts, err := ParseLogMessage(msg)
	if err != nil {
		return "", err
	}
	p, _ := json.Marshal(parts)
	// A JSON string is a Python string literal; the parts go as JSON
	// text, which Python reads (its true is not JSON's).
	qp, _ := json.Marshal(string(p))
	q, _ := json.Marshal(path)
	return fmt.Sprintf("script triage_lp_add(%d, %d, %s, %s, %d, %d)", lldbID, id, q, qp, LogBookMaxBytes, MaxHitMessage), nil
}

// LLDBLogpointCommand is the breakpoint command that logs a hit and
// returns False: lldb does not stop.
func LLDBLogpointCommand(lldbID int) string {
	return fmt.Sprintf(`breakpoint command add -s python -o "return triage_lp_hit(frame, bp_loc, internal_dict)" %d`, lldbID)
}
