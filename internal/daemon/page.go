package daemon

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"
)

// The daemon's socket carries MCP (newline-delimited JSON-RPC: every
// message is a JSON object, so its first byte is '{') and one request of
// its own, told apart by that first byte: a line "page ADDR" asks the
// daemon to serve the web page on the loopback address ADDR (port 0: any
// free port; a page already served stays where it is) and is answered by
// one JSON line, {"url": ONE-TIME LOGIN URL} or {"error": WHY}.
const pageVerb = "page "

// maxRequest bounds the request line: an address is short.
const maxRequest = 1024

// IsRequest reports whether a connection whose first byte is first carries
// a request of the daemon's own rather than MCP.
func IsRequest(first byte) bool { return first != '{' }

// ReadPageRequest reads the request line from r and returns the address it
// asks the page to be served on.
func ReadPageRequest(r *bufio.Reader) (string, error) {
	verb, arg, err := ReadRequest(r)
	if err != nil {
		return "", err
	}
	return PageRequest(verb, arg)
}

// PageRequest returns the address a request (ReadRequest's verb and
// argument) asks the page to be served on, or why it is no page request.
func PageRequest(verb, arg string) (string, error) {
	if verb+" " != pageVerb {
		return "", fmt.Errorf("unknown request %.40q: the daemon serves MCP and %q requests", strings.TrimSpace(verb+" "+arg), strings.TrimSpace(pageVerb))
	}
	return arg, nil
}

// pageAnswer is the daemon's one-line answer to a page request.
type pageAnswer struct {
	URL   string `json:"url,omitempty"`
	Error string `json:"error,omitempty"`
}

// AnswerPage writes the answer to a page request: the login URL, or err.
func AnswerPage(w io.Writer, url string, err error) error {
	a := pageAnswer{URL: url}
	if err != nil {
		a = pageAnswer{Error: err.Error()}
	}
	b, _ := json.Marshal(a)
	_, werr := w.Write(append(b, '\n'))
	return werr
}

// RequestPage asks the daemon on conn to serve the web page on addr and
// returns the one-time login URL it answers, within 30 s.
func RequestPage(ctx context.Context, conn net.Conn, addr string) (string, error) {
	if strings.ContainsAny(addr, "\r\n") {
		return "", fmt.Errorf("address %q holds a line break", addr)
	}
	deadline := time.Now().Add(30 * time.Second)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	conn.SetDeadline(deadline)
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Now()) })
	defer stop()
	if _, err := io.WriteString(conn, pageVerb+addr+"\n"); err != nil {
		return "", fmt.Errorf("asking the daemon for the web page: %w", err)
	}
	line, err := bufio.NewReaderSize(conn, 4096).ReadSlice('\n')
	if err != nil {
		return "", fmt.Errorf("the daemon's answer for the web page: %w", err)
	}
	var a pageAnswer
	if err := json.Unmarshal(line, &a); err != nil || a.URL == "" && a.Error == "" {
		return "", ErrNoPage
	}
	if a.Error != "" {
		return "", errors.New(a.Error)
	}
	return a.URL, nil
}

// ErrNoPage says the daemon answered a page request with something else:
// a daemon of an older triage, which speaks only MCP.
var ErrNoPage = errors.New("the daemon does not serve the web page (it is an older triage's): stop it with `triage daemon stop` and try again")
