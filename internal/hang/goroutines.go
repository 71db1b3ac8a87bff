package hang

import (
	"bytes"
	"encoding/json"
	"regexp"
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
}

// Kinds of Stack.
const (
	KindGoroutine = "goroutine"
	KindThread    = "thread"
)

var (
	// goroutine 18 gp=0xbf9940261e0 m=nil [chan receive, 2 minutes]:
	goroutineRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^goroutine (\d+)\b[^\[]*\[([^\]]*)\]:\s*$`) })
	// \t/tmp/x/hang_test.go:7 +0x25 fp=0x... sp=0x... pc=0x...
	goFileRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\t(.+?):(\d+)(?: \+0x[0-9a-f]+)?(?: .*)?$`) })
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
	var stacks []Stack
	var cur *Stack
	var pendingFn string // a function line whose file line has not come yet
	created := false
	for ln := range strings.SplitSeq(text, "\n") {
		ln = strings.TrimRight(ln, "\r")
		if m := goroutineRE().FindStringSubmatch(ln); m != nil {
			id, _ := strconv.Atoi(m[1])
			stacks = append(stacks, Stack{Kind: KindGoroutine, ID: id, State: waitReason(m[2])})
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
		if m := goFileRE().FindStringSubmatch(ln); m != nil {
			if pendingFn == "" || created {
				pendingFn = ""
				continue // the creator's location
			}
			line, _ := strconv.Atoi(m[2])
			cur.Frames = append(cur.Frames, coredump.Frame{Index: len(cur.Frames), Function: pendingFn, File: m[1], Line: line})
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
// atomic load, so a run that never hangs pays nothing.
type Tap struct {
	armed atomic.Bool
	mu    sync.Mutex
	buf   []byte
	max   int
	cut   bool
}

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
	room := t.max - len(t.buf)
	if room < len(p) {
		t.cut = true
		t.buf = append(t.buf, p[:max(room, 0)]...)
		return len(p), nil
	}
	t.buf = append(t.buf, p...)
	return len(p), nil
}

// Bytes returns what was kept and whether the bound cut it.
func (t *Tap) Bytes() ([]byte, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.buf, t.cut
}
