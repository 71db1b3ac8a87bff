package dap

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	godap "github.com/google/go-dap"
)

// ErrConnClosed is the cause given to calls retired because the connection was
// closed or the adapter went away. Errors returned by Call wrap it, so callers
// can tell a dead adapter from a request the adapter refused.
var ErrConnClosed = errors.New("debug adapter connection closed")

// ResponseError is a response the adapter sent with success=false.
type ResponseError struct {
	Command string
	Message string // short message ("cancelled", "notStopped", ...)
	Detail  string // formatted body.error, when the adapter sent one
}

func (e *ResponseError) Error() string {
	msg := e.Detail
	if msg == "" {
		msg = e.Message
	}
	if msg == "" {
		msg = "request failed"
	}
	return fmt.Sprintf("%s: %s", e.Command, msg)
}

// Event is an event from the adapter. Body is left raw: the subscriber decodes
// the events it knows and ignores the rest.
type Event struct {
	Name string
	Body json.RawMessage
}

// message is every DAP message shape at once. Decoding into it instead of
// go-dap's codec keeps unknown events, unknown reverse requests and
// adapter-specific responses from being framing errors.
type message struct {
	Seq        int             `json:"seq"`
	Type       string          `json:"type"`
	Command    string          `json:"command,omitempty"`
	Event      string          `json:"event,omitempty"`
	RequestSeq int             `json:"request_seq,omitempty"`
	Success    bool            `json:"success,omitempty"`
	Message    string          `json:"message,omitempty"`
	Arguments  json.RawMessage `json:"arguments,omitempty"`
	Body       json.RawMessage `json:"body,omitempty"`
}

type result struct {
	msg message
	err error
}

// Conn is a DAP client connection: framing, request/response correlation,
// events and reverse requests over one byte stream.
//
// Goroutines: NewConn starts one reader goroutine, the only code that reads the
// stream. It retires pending calls by request_seq, hands events to onEvent
// (which runs on the reader goroutine and must not block or call the Conn) and
// answers reverse requests. Callers of Call only register in pending, write
// (one writer at a time, under writeMu) and wait. When the stream ends or
// Close is called every pending call is retired with an error wrapping
// ErrConnClosed.
type Conn struct {
	rwc     io.ReadWriteCloser
	onEvent func(Event)
	seq     atomic.Int64

	writeMu sync.Mutex // held for one framed write

	mu      sync.Mutex
	pending map[int]chan result // by request seq; each channel 1-buffered
	err     error               // set once, when the connection dies
	done    chan struct{}       // closed when err is set
}

// NewConn starts a client on rwc. onEvent may be nil.
func NewConn(rwc io.ReadWriteCloser, onEvent func(Event)) *Conn {
	if onEvent == nil {
		onEvent = func(Event) {}
	}
	c := &Conn{
		rwc:     rwc,
		onEvent: onEvent,
		pending: make(map[int]chan result),
		done:    make(chan struct{}),
	}
	go c.read()
	return c
}

// Done is closed when the connection is dead.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err reports why the connection died, or nil while it is alive.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Close closes the stream and retires every pending call with cause (wrapped
// with ErrConnClosed). It is safe to call more than once; the first cause wins.
func (c *Conn) Close(cause error) error {
	c.fail(cause)
	return c.rwc.Close()
}

// Call sends command with args and waits for its response, decoding the body
// into body when body is non-nil. It returns a *ResponseError when the
// adapter answers success=false, an error wrapping ErrConnClosed when the
// connection dies first, and ctx's error when ctx ends first (the call is then
// forgotten; a late response is dropped). A ctx without a deadline gets
// DefaultTimeout.
func (c *Conn) Call(ctx context.Context, command string, args, body any) error {
	return <-c.Go(ctx, command, args, body)
}

// Go sends command at once and returns a channel that yields Call's result.
// The request is on the wire when Go returns, so requests that must follow
// it in order (configuration after launch) can be sent straight after.
func (c *Conn) Go(ctx context.Context, command string, args, body any) <-chan error {
	out := make(chan error, 1)
	cancel := context.CancelFunc(func() {})
	if _, ok := ctx.Deadline(); !ok {
		ctx, cancel = context.WithTimeout(ctx, DefaultTimeout)
	}
	seq, ch, err := c.send(command, args)
	if err != nil {
		cancel()
		out <- err
		return out
	}
	go func() {
		defer cancel()
		select {
		case r := <-ch:
			if r.err != nil {
				out <- fmt.Errorf("%s: %w", command, r.err)
				return
			}
			out <- decodeResponse(command, r.msg, body)
		case <-ctx.Done():
			c.forget(seq)
			out <- fmt.Errorf("%s: %w", command, ctx.Err())
		}
	}()
	return out
}

// send registers a pending call and writes the request.
func (c *Conn) send(command string, args any) (int, chan result, error) {
	seq := int(c.seq.Add(1))
	ch := make(chan result, 1)
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return 0, nil, fmt.Errorf("%s: %w", command, err)
	}
	c.pending[seq] = ch
	c.mu.Unlock()

	req := message{Seq: seq, Type: "request", Command: command}
	if args != nil {
		raw, err := json.Marshal(args)
		if err != nil {
			c.forget(seq)
			return 0, nil, fmt.Errorf("encoding %s arguments: %v", command, err)
		}
		req.Arguments = raw
	}
	if err := c.write(req); err != nil {
		c.forget(seq)
		c.fail(fmt.Errorf("writing %s: %v", command, err))
		return 0, nil, fmt.Errorf("%s: %w", command, c.Err())
	}
	return seq, ch, nil
}

func decodeResponse(command string, m message, body any) error {
	if !m.Success {
		re := &ResponseError{Command: command, Message: m.Message}
		var eb godap.ErrorResponseBody
		if len(m.Body) > 0 && json.Unmarshal(m.Body, &eb) == nil && eb.Error != nil {
			re.Detail = formatErrorMessage(eb.Error)
		}
		return re
	}
	if body == nil || len(m.Body) == 0 || string(m.Body) == "null" {
		return nil
	}
	if err := json.Unmarshal(m.Body, body); err != nil {
		return fmt.Errorf("decoding %s response: %v", command, err)
	}
	return nil
}

// formatErrorMessage expands "{name}" placeholders the way DAP clients do.
func formatErrorMessage(e *godap.ErrorMessage) string {
	out := e.Format
	for k, v := range e.Variables {
		out = strings.ReplaceAll(out, "{"+k+"}", v)
	}
	return out
}

func (c *Conn) forget(seq int) {
	c.mu.Lock()
	delete(c.pending, seq)
	c.mu.Unlock()
}

func (c *Conn) write(m message) error {
	raw, err := json.Marshal(m)
	if err != nil {
		return err
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	return godap.WriteBaseMessage(c.rwc, raw)
}

// fail marks the connection dead and retires every pending call.
func (c *Conn) fail(cause error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return
	}
	if cause == nil || errors.Is(cause, io.EOF) {
		c.err = ErrConnClosed
	} else {
		c.err = fmt.Errorf("%w: %v", ErrConnClosed, cause)
	}
	for seq, ch := range c.pending {
		ch <- result{err: c.err}
		delete(c.pending, seq)
	}
	close(c.done)
}

func (c *Conn) read() {
	r := bufio.NewReader(c.rwc)
	for {
		raw, err := godap.ReadBaseMessage(r)
		if err != nil {
			c.fail(err)
			return
		}
		var m message
		if err := json.Unmarshal(raw, &m); err != nil {
			c.fail(fmt.Errorf("decoding adapter message: %v", err))
			return
		}
		switch m.Type {
		case "response":
			c.deliver(m)
		case "event":
			c.onEvent(Event{Name: m.Event, Body: m.Body})
		case "request":
			c.answerReverse(m)
		}
		// Other types are ignored: a future protocol revision is no reason
		// to drop the session.
	}
}

func (c *Conn) deliver(m message) {
	c.mu.Lock()
	ch, ok := c.pending[m.RequestSeq]
	delete(c.pending, m.RequestSeq)
	c.mu.Unlock()
	if ok {
		ch <- result{msg: m}
	}
}

// answerReverse declines reverse requests. runInTerminal is not needed because
// we never ask for a terminal, and startDebugging (child sessions) is not
// supported; answering keeps an adapter that asks anyway from waiting forever.
func (c *Conn) answerReverse(m message) {
	resp := message{
		Seq:        int(c.seq.Add(1)),
		Type:       "response",
		RequestSeq: m.Seq,
		Command:    m.Command,
		Success:    false,
		Message:    "reverse request " + m.Command + " is not supported by this client",
	}
	// Write off the reader goroutine: a writer blocked on a full pipe must not
	// stop us from reading, or both sides would deadlock.
	go func() {
		if err := c.write(resp); err != nil {
			c.fail(fmt.Errorf("answering %s: %v", m.Command, err))
		}
	}()
}

// DefaultTimeout bounds calls whose context has no deadline.
const DefaultTimeout = 30 * time.Second
