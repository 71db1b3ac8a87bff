package hang

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/triage-dev/triage/internal/coredump"
)

// Stack is one goroutine's or thread's stack at the time of capture.
type Stack struct {
	Pid  int    `json:"pid,omitempty"`
	Kind string `json:"kind"` // KindGoroutine or KindThread
	ID   int    `json:"id"`   // goroutine id, or the debugger's thread number
	LWP  int    `json:"lwp,omitempty"`
	Name string `json:"name,omitempty"` // a thread's name
	// State is the Go runtime's wait reason ("chan receive",
	// "sync.Mutex.Lock"), or for a thread "running" when the kernel had it
	// on a CPU ("R") and "" otherwise.
	State     string           `json:"state,omitempty"`
	Frames    []coredump.Frame `json:"frames"`
	CreatedBy string           `json:"created_by,omitempty"` // the goroutine's creator
	// MutexOwner is, for a thread waiting for a glibc pthread mutex, the
	// LWP of the thread holding it, and for one waiting for a glibc
	// pthread rwlock, of the writer holding it; 0 when not known.
	MutexOwner int `json:"mutex_owner,omitempty"`
}

// Kinds of Stack.
const (
	KindGoroutine = "goroutine"
	KindThread    = "thread"
)

// quitMarker is the first line the Go runtime prints on SIGQUIT.
const quitMarker = "SIGQUIT: quit"

// ParseGoroutines reads the goroutine dump the Go runtime prints on SIGQUIT
// (or on a panic with GOTRACEBACK=all, or a `go test -timeout`), from the
// first "SIGQUIT: quit" line on when there is one. Lines wrapped by
// `go test -json` are unwrapped first.
func ParseGoroutines(out []byte) []Stack {
	text := unwrapTestJSON(out)
	if i := strings.Index(text, quitMarker); i >= 0 {
		text = text[i:]
	}
	stacks := make([]Stack, 0, strings.Count(text, "\ngoroutine ")+1)
	var cur *Stack
	var pendingFn string // a function line whose file line has not come yet
	created := false
	for ln := range strings.SplitSeq(text, "\n") {
		ln = strings.TrimRight(ln, "\r")
		if id, state, ok := goroutineHeader(ln); ok {
			stacks = append(stacks, Stack{Kind: KindGoroutine, ID: id, State: waitReason(state)})
			cur, pendingFn, created = &stacks[len(stacks)-1], "", false
			continue
		}
		if cur == nil {
			continue
		}
		if ln == "" {
			cur, pendingFn = nil, ""
			continue
		}
		if file, line, ok := goFileLine(ln); ok {
			if pendingFn == "" || created {
				pendingFn = ""
				continue // the creator's location
			}
			cur.Frames = append(cur.Frames, coredump.Frame{Index: len(cur.Frames), Function: pendingFn, File: file, Line: line})
			pendingFn = ""
			continue
		}
		if by, ok := strings.CutPrefix(ln, "created by "); ok {
			cur.CreatedBy, _, _ = strings.Cut(by, " in goroutine ")
			created, pendingFn = true, ""
			continue
		}
		if strings.HasPrefix(ln, "...") { // "...additional frames elided..."
			continue
		}
		pendingFn, created = goFunction(ln), false
	}
	return stacks
}

// goroutineHeader parses a goroutine's first line,
// "goroutine 18 gp=0xbf9940261e0 m=nil [chan receive, 2 minutes]:", into
// its id and bracketed state. It is read by hand, not by a regexp: a dump
// of 10,000 goroutines has tens of thousands of lines to try.
func goroutineHeader(ln string) (id int, state string, ok bool) {
	rest, ok := strings.CutPrefix(ln, "goroutine ")
	if !ok {
		return 0, "", false
	}
	digits := leadingDigits(rest)
	if digits == 0 || digits < len(rest) && isWordByte(rest[digits]) {
		return 0, "", false
	}
	id, _ = strconv.Atoi(rest[:digits])
	open := strings.IndexByte(rest, '[')
	if open < 0 {
		return 0, "", false
	}
	state, tail, found := strings.Cut(rest[open+1:], "]")
	// The pattern's \s: space, \t, \r, \n and \f (not \v).
	if !found || strings.TrimRight(tail, " \t\r\n\f") != ":" {
		return 0, "", false
	}
	return id, state, true
}

// goFileLine parses a frame's location line, "\t/tmp/x/main.go:7 +0x25
// fp=0x... sp=0x...": a tab, the file, a colon and the line number, then
// the end or a space (the first colon so followed ends the file).
func goFileLine(ln string) (file string, line int, ok bool) {
	s, ok := strings.CutPrefix(ln, "\t")
	if !ok {
		return "", 0, false
	}
	for i := 1; i < len(s); i++ {
		if s[i] != ':' {
			continue
		}
		digits := leadingDigits(s[i+1:])
		end := i + 1 + digits
		if digits > 0 && (end == len(s) || s[end] == ' ') {
			line, _ = strconv.Atoi(s[i+1 : end])
			return s[:i], line, true
		}
	}
	return "", 0, false
}

func leadingDigits(s string) int {
	n := 0
	for n < len(s) && '0' <= s[n] && s[n] <= '9' {
		n++
	}
	return n
}

func isWordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// waitReason keeps the runtime's reason without its decorations:
// "chan receive, 2 minutes" and "chan receive, locked to thread" are
// "chan receive".
func waitReason(s string) string {
	r, _, _ := strings.Cut(s, ",")
	return strings.TrimSpace(r)
}

// goFunction strips the argument list from "pkg.f(0x1, ...)" and the
// "panic(...)" style suffixes.
func goFunction(ln string) string {
	ln = strings.TrimSpace(ln)
	if i := strings.LastIndexByte(ln, '('); i > 0 && strings.HasSuffix(ln, ")") {
		return ln[:i]
	}
	return ln
}

// unwrapTestJSON turns `go test -json` lines ({"Action":"output",
// "Output":"..."}) back into the text the test binary printed; other lines
// are kept as they are.
func unwrapTestJSON(out []byte) string {
	if !bytes.Contains(out, []byte(`"Output":`)) {
		return string(out)
	}
	var b strings.Builder
	b.Grow(len(out) / 2)
	for ln := range bytes.SplitSeq(out, []byte{'\n'}) {
		if len(ln) > 0 && ln[0] == '{' && bytes.Contains(ln, []byte(`"Output":`)) {
			var ev struct {
				Output *string
			}
			if json.Unmarshal(ln, &ev) == nil && ev.Output != nil {
				b.WriteString(*ev.Output)
				continue
			}
		}
		b.Write(ln)
		b.WriteByte('\n')
	}
	return b.String()
}

// Tap keeps a bounded copy of an output stream from the moment it is armed:
// where a goroutine dump arrives after SIGQUIT. Until then a Write costs an
// atomic load, so a run that never hangs pays nothing. What is kept goes
// into chunks that are never moved: the program writing its dump waits on
// the reader, so the reader must not copy megabytes each time a buffer
// grows.
type Tap struct {
	armed  atomic.Bool
	mu     sync.Mutex
	chunks [][]byte
	size   int
	max    int
	cut    bool
}

// tapChunk is the size of a Tap's chunks (a write longer than one gets a
// chunk of its own).
const tapChunk = 1 << 20

// MaxTap bounds what a Tap keeps: a dump of 10,000 goroutines wrapped in
// `go test -json` is about 10 MiB.
const MaxTap = 32 << 20

// NewTap returns a tap keeping at most max bytes (0: MaxTap).
func NewTap(max int) *Tap {
	if max <= 0 {
		max = MaxTap
	}
	return &Tap{max: max}
}

// Arm starts keeping what is written.
func (t *Tap) Arm() { t.armed.Store(true) }

func (t *Tap) Write(p []byte) (int, error) {
	if !t.armed.Load() {
		return len(p), nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	if room := t.max - t.size; room < len(p) {
		t.cut, p = true, p[:max(room, 0)]
	}
	for len(p) > 0 {
		last := len(t.chunks) - 1
		if last < 0 || len(t.chunks[last]) == cap(t.chunks[last]) {
			t.chunks = append(t.chunks, make([]byte, 0, max(tapChunk, len(p))))
			last++
		}
		k := copy(t.chunks[last][len(t.chunks[last]):cap(t.chunks[last])], p)
		t.chunks[last] = t.chunks[last][:len(t.chunks[last])+k]
		t.size += k
		p = p[k:]
	}
	return n, nil
}

// Bytes returns what was kept, in one piece, and whether the bound cut it.
func (t *Tap) Bytes() ([]byte, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.chunks) > 1 {
		t.chunks = [][]byte{bytes.Join(t.chunks, nil)}
	}
	if len(t.chunks) == 0 {
		return nil, t.cut
	}
	return t.chunks[0], t.cut
}
