package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxLine bounds one inbound JSON-RPC message (a 1 MB argument fits easily).
const maxLine = 16 << 20

// lineTransport speaks newline-delimited JSON-RPC like the SDK's stdio
// transport, but a line that is not a valid message is answered with a
// JSON-RPC error (-32700 parse error, -32600 invalid request) instead of
// ending the session: one bad message from a client must not kill the server.
type lineTransport struct {
	r io.Reader
	w io.Writer
}

// Connect implements mcp.Transport.
func (t *lineTransport) Connect(context.Context) (mcp.Connection, error) {
	c := &lineConn{w: t.w, lines: make(chan []byte), done: make(chan struct{})}
	go c.readLoop(t.r)
	return c, nil
}

// lineConn owns one reader goroutine (readLoop) that splits the input into
// lines and hands them to Read over an unbuffered channel; Close unblocks both.
// Writes are serialized by mu so that two messages never interleave.
type lineConn struct {
	mu sync.Mutex // guards w
	w  io.Writer

	lines   chan []byte   // from readLoop; closed at EOF
	readErr error         // set before lines is closed
	done    chan struct{} // closed by Close
	once    sync.Once
}

func (c *lineConn) readLoop(r io.Reader) {
	defer close(c.lines)
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := readLine(br)
		if len(bytes.TrimSpace(line)) > 0 || errors.Is(err, errLineTooLong) {
			if errors.Is(err, errLineTooLong) {
				line = nil // Read answers with an error for a nil line
			}
			select {
			case c.lines <- line:
			case <-c.done:
				return
			}
		}
		if err != nil && !errors.Is(err, errLineTooLong) {
			c.readErr = err
			return
		}
	}
}

var errLineTooLong = errors.New("line too long")

// readLine reads one line, discarding the rest of a line over maxLine.
func readLine(br *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(buf)+len(chunk) > maxLine {
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = br.ReadSlice('\n')
			}
			if err != nil && !errors.Is(err, bufio.ErrBufferFull) && !errors.Is(err, io.EOF) {
				return nil, err
			}
			return nil, errLineTooLong
		}
		buf = append(buf, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return buf, err
	}
}

// Read implements mcp.Connection.
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		select {
		case line, ok := <-c.lines:
			if !ok {
				if c.readErr == nil || errors.Is(c.readErr, io.EOF) {
					return nil, io.EOF
				}
				return nil, c.readErr
			}
			if line == nil {
				c.reply(nil, -32600, fmt.Sprintf("message longer than %d bytes", maxLine))
				continue
			}
			if extra(line) {
				c.reply(requestID(firstValue(line)), -32700, "parse error: the line holds more than one JSON value; send one message per line")
				continue
			}
			msg, err := jsonrpc.DecodeMessage(line)
			if r, ok := msg.(*jsonrpc.Response); ok && err == nil && r.Result == nil && r.Error == nil {
				err = errors.New("a message needs a method (request) or a result or error (response)")
			}
			if err == nil {
				return msg, nil
			}
			if !json.Valid(line) {
				c.reply(nil, -32700, "parse error: the line is not valid JSON")
			} else {
				c.reply(requestID(line), -32600, "invalid request: "+err.Error())
			}
		case <-c.done:
			return nil, io.EOF
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// extra reports a line holding a JSON value followed by more than space
// (two messages on one line): decoding would take the first and silently
// drop the rest.
func extra(line []byte) bool {
	first := firstValue(line)
	return first != nil && len(bytes.TrimSpace(line[len(first):])) > 0
}

// firstValue is the line up to the end of its first JSON value, nil when it
// does not start with one.
func firstValue(line []byte) []byte {
	dec := json.NewDecoder(bytes.NewReader(line))
	var v json.RawMessage
	if err := dec.Decode(&v); err != nil {
		return nil
	}
	return line[:dec.InputOffset()]
}

// requestID extracts "id" from a JSON object, if any.
func requestID(line []byte) any {
	var v struct {
		ID any `json:"id"`
	}
	_ = json.Unmarshal(line, &v)
	return v.ID
}

// reply writes a JSON-RPC error response that bypasses the SDK (it never saw
// the message).
func (c *lineConn) reply(id any, code int, message string) {
	b, _ := json.Marshal(struct {
		JSONRPC string `json:"jsonrpc"`
		ID      any    `json:"id"`
		Error   any    `json:"error"`
	}{"2.0", id, map[string]any{"code": code, "message": message}})
	c.writeLine(b)
}

// Write implements mcp.Connection.
func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	return c.writeLine(b)
}

func (c *lineConn) writeLine(b []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, err := c.w.Write(append(b, '\n'))
	return err
}

// Close implements mcp.Connection.
func (c *lineConn) Close() error {
	c.once.Do(func() { close(c.done) })
	return nil
}

// SessionID implements mcp.Connection.
func (c *lineConn) SessionID() string { return "" }

func stdioTransport() mcp.Transport { return &lineTransport{r: os.Stdin, w: os.Stdout} }
