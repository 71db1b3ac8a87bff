package dap

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/debugger"
)

// replayStream is an adapter's side of the wire recorded as bytes: reads
// come from the recording, writes are accepted and dropped.
type replayStream struct{ r io.Reader }

func (s replayStream) Read(p []byte) (int, error)  { return s.r.Read(p) }
func (s replayStream) Write(p []byte) (int, error) { return len(p), nil }
func (s replayStream) Close() error                { return nil }

func frame(body string) []byte {
	return fmt.Appendf(nil, "Content-Length: %d\r\n\r\n%s", len(body), body)
}

// FuzzConn: whatever an adapter sends, the connection ends when the stream
// does with an error wrapping ErrConnClosed, a pending call is answered or
// retired (never left waiting), and the events it carried leave the backend
// in a valid state.
func FuzzConn(f *testing.F) {
	f.Add(append(frame(`{"seq":1,"type":"response","request_seq":1,"success":true,"command":"threads","body":{"threads":[{"id":1,"name":"a"}]}}`),
		frame(`{"seq":2,"type":"event","event":"stopped","body":{"reason":"exception","description":"EXC_BAD_ACCESS","threadId":1}}`)...))
	f.Add(append(frame(`{"seq":1,"type":"event","event":"exited","body":{"exitCode":139}}`), frame(`{"seq":2,"type":"event","event":"terminated"}`)...))
	f.Add(frame(`{"seq":1,"type":"request","command":"runInTerminal","arguments":{}}`))
	f.Add(frame(`{"seq":1,"type":"response","request_seq":1,"success":false,"message":"x","body":{"error":{"format":"{a} b","variables":{"a":"c"}}}}`))
	f.Add(frame(`{"seq":1,"type":"event","event":"breakpoint","body":{"reason":"changed","breakpoint":{"id":1,"verified":true,"line":3}}}`))
	f.Add([]byte("Content-Length: 99999999999\r\n\r\n{"))
	f.Add([]byte("Content-Length: 5\r\n\r\n{}"))
	f.Fuzz(func(t *testing.T, stream []byte) {
		b := New(KindLLDB, debugger.Config{})
		b.bps[1] = &breakpoint{adapterID: 1}
		c := NewConn(replayStream{bytes.NewReader(stream)}, b.onEvent)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		var threads struct {
			Threads []struct{ ID int } `json:"threads"`
		}
		err := c.Call(ctx, "threads", nil, &threads)
		var re *ResponseError
		switch {
		case err == nil, errors.As(err, &re), errors.Is(err, ErrConnClosed):
		case errors.Is(err, context.DeadlineExceeded):
			t.Fatal("the call was left waiting after the stream ended")
		default:
			// A response whose body does not decode.
			if !bytes.Contains([]byte(err.Error()), []byte("decoding threads response")) {
				t.Fatalf("unexpected call error: %v", err)
			}
		}
		select {
		case <-c.Done():
		case <-ctx.Done():
			t.Fatal("connection alive after the stream ended")
		}
		if !errors.Is(c.Err(), ErrConnClosed) {
			t.Fatalf("Err() = %v, want it to wrap ErrConnClosed", c.Err())
		}
		st := b.State()
		switch st.Status {
		case debugger.StatusNotStarted, debugger.StatusStopped, debugger.StatusRunning, debugger.StatusExited:
		default:
			t.Fatalf("events left status %q", st.Status)
		}
		if st.Status == debugger.StatusStopped && st.LastStop == nil {
			t.Fatal("stopped without a stop")
		}
	})
}
