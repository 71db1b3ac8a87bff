package daemon

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
)

// serveOne answers one request on the far end of a pipe with answer.
func serveOne(t *testing.T, answer func(r *bufio.Reader, w io.Writer)) net.Conn {
	client, srv := net.Pipe()
	t.Cleanup(func() { client.Close(); srv.Close() })
	go func() {
		defer srv.Close()
		answer(bufio.NewReader(srv), srv)
	}()
	return client
}

// A page request goes out as one line, told apart from MCP by its first
// byte, and the daemon's answer comes back: the URL, or the error's text.
func TestPageRequestRoundTrip(t *testing.T) {
	var asked string
	conn := serveOne(t, func(r *bufio.Reader, w io.Writer) {
		first, _ := r.Peek(1)
		if !IsRequest(first[0]) {
			t.Errorf("a page request taken for MCP: %q", first)
		}
		asked, _ = ReadPageRequest(r)
		AnswerPage(w, "http://127.0.0.1:1/ui/login?code=x", nil)
	})
	url, err := RequestPage(context.Background(), conn, "127.0.0.1:0")
	if err != nil || url != "http://127.0.0.1:1/ui/login?code=x" || asked != "127.0.0.1:0" {
		t.Fatalf("asked %q, got %q %v", asked, url, err)
	}
	if IsRequest('{') {
		t.Error("an MCP message taken for a page request")
	}

	conn = serveOne(t, func(r *bufio.Reader, w io.Writer) {
		ReadPageRequest(r)
		AnswerPage(w, "", errors.New("page address is not loopback"))
	})
	if _, err := RequestPage(context.Background(), conn, "10.0.0.1:80"); err == nil || err.Error() != "page address is not loopback" {
		t.Errorf("the daemon's refusal: %v", err)
	}
}

// An older daemon answers the line as a bad JSON-RPC message: the client
// says what to do rather than showing a parse error.
func TestPageRequestToAnOlderDaemon(t *testing.T) {
	conn := serveOne(t, func(r *bufio.Reader, w io.Writer) {
		r.ReadString('\n')
		io.WriteString(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`+"\n")
	})
	if _, err := RequestPage(context.Background(), conn, "127.0.0.1:0"); !errors.Is(err, ErrNoPage) {
		t.Errorf("got %v, want ErrNoPage", err)
	}
}

// Anything but a page request is refused by name; so is a line break in
// the address, which would make a second request.
func TestPageRequestRefusals(t *testing.T) {
	for _, line := range []string{"stop\n", "page-x 1\n", strings.Repeat("x", 2000) + "\n"} {
		if _, err := ReadPageRequest(bufio.NewReader(strings.NewReader(line))); err == nil {
			t.Errorf("%.20q accepted", line)
		}
	}
	if _, err := RequestPage(context.Background(), nil, "127.0.0.1:0\npage 10.0.0.1:1"); err == nil {
		t.Error("an address with a line break sent")
	}
}
