package dap

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net"
	"sync"
	"testing"
	"time"

	godap "github.com/google/go-dap"
)

// fakeAdapter is the server end of a net.Pipe: it reads requests and hands
// each to a script, which answers with send.
type fakeAdapter struct {
	t    *testing.T
	conn net.Conn
	r    *bufio.Reader
	wmu  sync.Mutex
	seq  int
}

func newPair(t *testing.T, onEvent func(Event)) (*Conn, *fakeAdapter) {
	t.Helper()
	client, server := net.Pipe()
	c := NewConn(client, onEvent)
	t.Cleanup(func() { c.Close(nil); server.Close() })
	return c, &fakeAdapter{t: t, conn: server, r: bufio.NewReader(server)}
}

func (f *fakeAdapter) recv() message {
	raw, err := godap.ReadBaseMessage(f.r)
	if err != nil {
		f.t.Errorf("fake adapter read: %v", err)
		return message{}
	}
	var m message
	if err := json.Unmarshal(raw, &m); err != nil {
		f.t.Errorf("fake adapter decode: %v", err)
	}
	return m
}

func (f *fakeAdapter) send(m message) {
	f.wmu.Lock()
	defer f.wmu.Unlock()
	f.seq++
	m.Seq = f.seq
	raw, _ := json.Marshal(m)
	if err := godap.WriteBaseMessage(f.conn, raw); err != nil {
		f.t.Errorf("fake adapter write: %v", err)
	}
}

func (f *fakeAdapter) respond(req message, body any) {
	raw, _ := json.Marshal(body)
	f.send(message{Type: "response", RequestSeq: req.Seq, Command: req.Command, Success: true, Body: raw})
}

func TestCallCorrelatesOutOfOrderResponses(t *testing.T) {
	c, f := newPair(t, nil)
	go func() {
		a, b := f.recv(), f.recv()
		// Answer in reverse order; each body names its request's command.
		f.respond(b, map[string]string{"echo": b.Command})
		f.respond(a, map[string]string{"echo": a.Command})
	}()
	var wg sync.WaitGroup
	for _, cmd := range []string{"threads", "scopes"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var body struct{ Echo string }
			if err := c.Call(context.Background(), cmd, nil, &body); err != nil {
				t.Errorf("%s: %v", cmd, err)
			}
			if body.Echo != cmd {
				t.Errorf("%s got response for %q", cmd, body.Echo)
			}
		}()
	}
	wg.Wait()
}

func TestEventsReverseRequestsAndUnknownEvents(t *testing.T) {
	events := make(chan Event, 8)
	c, f := newPair(t, func(e Event) { events <- e })
	reverseAnswer := make(chan message, 1)
	go func() {
		req := f.recv()
		// An event before the response, an unknown event and a reverse request.
		f.send(message{Type: "event", Event: "initialized"})
		f.send(message{Type: "event", Event: "lldb-custom-thing", Body: json.RawMessage(`{"x":1}`)})
		f.send(message{Type: "request", Command: "runInTerminal", Arguments: json.RawMessage(`{"args":["sh"]}`)})
		reverseAnswer <- f.recv()
		f.respond(req, nil)
		f.send(message{Type: "event", Event: "stopped", Body: json.RawMessage(`{"reason":"breakpoint","threadId":7}`)})
	}()
	if err := c.Call(context.Background(), "launch", map[string]string{"program": "/x"}, nil); err != nil {
		t.Fatal(err)
	}
	ans := <-reverseAnswer
	if ans.Type != "response" || ans.Command != "runInTerminal" || ans.Success {
		t.Errorf("reverse request answered with %+v, want a failed runInTerminal response", ans)
	}
	var names []string
	for len(names) < 3 {
		names = append(names, (<-events).Name)
	}
	want := []string{"initialized", "lldb-custom-thing", "stopped"}
	for i := range want {
		if names[i] != want[i] {
			t.Fatalf("events = %v, want %v", names, want)
		}
	}
}

func TestErrorResponse(t *testing.T) {
	c, f := newPair(t, nil)
	go func() {
		req := f.recv()
		body := json.RawMessage(`{"error":{"id":3,"format":"no symbol {name} in scope","variables":{"name":"zz"}}}`)
		f.send(message{Type: "response", RequestSeq: req.Seq, Command: req.Command, Message: "evaluate failed", Body: body})
	}()
	err := c.Call(context.Background(), "evaluate", nil, nil)
	var re *ResponseError
	if !errors.As(err, &re) {
		t.Fatalf("err = %v, want *ResponseError", err)
	}
	if re.Detail != "no symbol zz in scope" {
		t.Errorf("detail = %q", re.Detail)
	}
	if c.Err() != nil {
		t.Errorf("connection died after an error response: %v", c.Err())
	}
}

func TestAdapterDeathRetiresPendingCalls(t *testing.T) {
	c, f := newPair(t, nil)
	const n = 5
	errs := make(chan error, n)
	for range n {
		go func() { errs <- c.Call(context.Background(), "continue", nil, nil) }()
	}
	for range n {
		f.recv()
	}
	f.conn.Close() // the adapter dies with five calls outstanding
	deadline := time.After(time.Second)
	for range n {
		select {
		case err := <-errs:
			if !errors.Is(err, ErrConnClosed) {
				t.Errorf("err = %v, want ErrConnClosed", err)
			}
		case <-deadline:
			t.Fatal("pending calls not retired within a second of adapter death")
		}
	}
	if err := c.Call(context.Background(), "threads", nil, nil); !errors.Is(err, ErrConnClosed) {
		t.Errorf("call after death: %v, want ErrConnClosed", err)
	}
}

func TestCallContextTimeoutKeepsConnUsable(t *testing.T) {
	c, f := newPair(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	first := make(chan message, 1)
	go func() {
		first <- f.recv()
		second := f.recv()
		f.respond(<-first, map[string]int{"late": 1}) // must be dropped
		f.respond(second, map[string]int{"late": 0})
	}()
	errc := make(chan error, 1)
	go func() { errc <- c.Call(ctx, "stackTrace", nil, nil) }()
	// Wait for the request to reach the adapter, then give up on it.
	m := <-first
	first <- m
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	var body struct{ Late int }
	if err := c.Call(context.Background(), "threads", nil, &body); err != nil || body.Late != 0 {
		t.Fatalf("second call: body=%+v err=%v", body, err)
	}
}

func TestHostileFramingKillsConnection(t *testing.T) {
	for _, wire := range []string{
		"Content-Length: 2\r\n\r\n{]",
		"Content-Length: abc\r\n\r\n",
		"Content-Length: 99999999\r\n\r\n",
		"Content-Type: json\r\n\r\n{}",
		"Content-Length: 5\r\n\n{}",
		"garbage without a header\r\n\r\n",
	} {
		t.Run(wire, func(t *testing.T) {
			c, f := newPair(t, nil)
			errc := make(chan error, 1)
			go func() { errc <- c.Call(context.Background(), "threads", nil, nil) }()
			f.recv()
			go f.conn.Write([]byte(wire))
			select {
			case err := <-errc:
				if !errors.Is(err, ErrConnClosed) {
					t.Errorf("err = %v, want ErrConnClosed", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("hostile input did not retire the pending call")
			}
		})
	}
}

func TestResponseForUnknownSeqIgnored(t *testing.T) {
	c, f := newPair(t, nil)
	go func() {
		req := f.recv()
		f.send(message{Type: "response", RequestSeq: 9999, Command: "bogus", Success: true})
		f.send(message{Type: "weird"})
		f.respond(req, nil)
	}()
	if err := c.Call(context.Background(), "threads", nil, nil); err != nil {
		t.Fatal(err)
	}
}
