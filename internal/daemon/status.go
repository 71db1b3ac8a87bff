package daemon

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// statusVerb asks the daemon what it serves and holds: it answers one JSON
// line, a Status. Unlike an MCP call it does not count as use, so asking
// does not keep an idle daemon alive.
const statusVerb = "status"

// Status is what a daemon serves and holds, as it answers a status
// request.
type Status struct {
	Dir       string    `json:"dir"` // its working directory: the one it serves
	Pid       int       `json:"pid"`
	Started   time.Time `json:"started"`
	Processes []Held    `json:"processes"`
	Debug     []Held    `json:"debug"`
	Dumps     []Held    `json:"dumps"`
}

// Held is one process or session a daemon holds.
type Held struct {
	ID      string `json:"id"`
	What    string `json:"what"`              // the program, core or dump
	Running bool   `json:"running,omitempty"` // a process that has not ended
}

// Running counts the processes still running.
func (s Status) Running() int {
	n := 0
	for _, p := range s.Processes {
		if p.Running {
			n++
		}
	}
	return n
}

// Holds says what the daemon holds in a few words ("nothing held" when
// nothing).
func (s Status) Holds() string {
	var parts []string
	if n := len(s.Processes); n > 0 {
		parts = append(parts, fmt.Sprintf("%s (%d running): %s", plural(n, "process", "processes"), s.Running(), ids(s.Processes)))
	}
	if n := len(s.Debug); n > 0 {
		parts = append(parts, fmt.Sprintf("%s: %s", plural(n, "debug session", "debug sessions"), ids(s.Debug)))
	}
	if n := len(s.Dumps); n > 0 {
		parts = append(parts, fmt.Sprintf("%s: %s", plural(n, "dump session", "dump sessions"), ids(s.Dumps)))
	}
	if len(parts) == 0 {
		return "nothing held"
	}
	return strings.Join(parts, "; ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func ids(h []Held) string {
	s := make([]string, len(h))
	for i, x := range h {
		s[i] = x.ID
	}
	return strings.Join(s, " ")
}

// Self is the part of a Status the daemon knows of itself: its directory,
// pid and start (its pid file's time); the caller adds what it holds.
func Self(p Paths) Status {
	s := Status{Pid: os.Getpid(), Processes: []Held{}, Debug: []Held{}, Dumps: []Held{}}
	s.Dir, _ = os.Getwd()
	if fi, err := os.Stat(p.Pid); err == nil {
		s.Started = fi.ModTime()
	}
	return s
}

// ReadRequest reads a request of the daemon's own from r (see IsRequest):
// its verb and its argument.
func ReadRequest(r *bufio.Reader) (verb, arg string, err error) {
	line, err := r.ReadSlice('\n')
	if err != nil {
		return "", "", fmt.Errorf("reading the request: %w", err)
	}
	if len(line) > maxRequest {
		return "", "", fmt.Errorf("a request of %d bytes: at most %d", len(line), maxRequest)
	}
	verb, arg, _ = strings.Cut(strings.TrimSpace(string(line)), " ")
	return verb, strings.TrimSpace(arg), nil
}

// IsStatus reports a status request's verb.
func IsStatus(verb string) bool { return verb == statusVerb }

// AnswerStatus writes the answer to a status request.
func AnswerStatus(w io.Writer, s Status) error {
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// AskStatus asks the daemon of p what it serves and holds, within
// PingWithin: ErrNotRunning (wrapped) when nothing listens,
// NotResponding's error when it accepts and does not answer.
func AskStatus(ctx context.Context, p Paths) (Status, error) {
	conn, err := Dial(ctx, p)
	if err != nil {
		return Status{}, err
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(PingWithin))
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Now()) })
	defer stop()
	if _, err := io.WriteString(conn, statusVerb+"\n"); err != nil {
		return Status{}, NotResponding(p, err)
	}
	line, err := bufio.NewReaderSize(conn, 64<<10).ReadSlice('\n')
	if err != nil {
		return Status{}, NotResponding(p, err)
	}
	var s Status
	if err := json.Unmarshal(line, &s); err != nil || s.Pid == 0 {
		// An older triage's daemon: alive, but it does not say.
		return Status{Pid: ReadPid(p), Dir: ReadDir(p)}, ErrNoStatus
	}
	return s, nil
}

// ErrNoStatus says the daemon answered a status request with something
// else: an older triage's daemon.
var ErrNoStatus = fmt.Errorf("the daemon does not tell what it holds (an older triage's)")

// All returns the paths of every daemon of the user whose socket is in
// the runtime directory, a daemon that ended without cleaning up included
// (see Stale), ordered by socket name.
func All() ([]Paths, error) {
	dir, err := runtimeDir()
	if err != nil {
		return nil, err
	}
	socks, err := filepath.Glob(filepath.Join(dir, "*.sock"))
	if err != nil {
		return nil, err
	}
	sort.Strings(socks)
	out := make([]Paths, len(socks))
	for i, s := range socks {
		out[i] = FromSocket(s)
	}
	return out, nil
}

// Clear removes the socket and pid file a daemon left when it ended
// without cleaning up (killed), under its start lock so that a daemon
// being started meanwhile is left alone; its log stays, to be read.
func Clear(p Paths) {
	unlock, err := Lock(p)
	if err != nil {
		return
	}
	defer unlock()
	if Stale(p) {
		os.Remove(p.Socket)
		os.Remove(p.Pid)
	}
}

// forgetIDs removes the shared id counts (NextNumber) once no daemon's
// socket is left in dir: with no daemon alive no id is held, and the
// runtime directory is left empty.
func forgetIDs(dir string) {
	if socks, _ := filepath.Glob(filepath.Join(dir, "*.sock")); len(socks) > 0 {
		return
	}
	counts, _ := filepath.Glob(filepath.Join(dir, "ids-*"))
	for _, c := range counts {
		os.Remove(c)
	}
}
