package pipeline

import (
	"io"
	"testing"
)

func TestQueuePipe(t *testing.T) {
	q := newQueuePipe()
	buf := []byte("first ")
	q.Write(buf)
	copy(buf, "XXXXXX") // the writer reuses its buffer: the queue kept a copy
	q.Write(nil)
	q.Write([]byte("second"))
	q.Close()
	q.Write([]byte(" after close"))
	q.Close()
	got, err := io.ReadAll(q)
	if err != nil || string(got) != "first second" {
		t.Errorf("read %q, %v; want %q", got, err, "first second")
	}
}

// A writer runs ahead of a reader that has not started, up to the queue's
// depth, and the reader gets every byte in order.
func TestQueuePipeWriterAhead(t *testing.T) {
	q := newQueuePipe()
	var want []byte
	for i := range queueDepth {
		q.Write([]byte{byte('a' + i)})
		want = append(want, byte('a'+i))
	}
	done := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(q)
		done <- b
	}()
	q.Write([]byte("!")) // waits for the reader
	q.Close()
	if got, want := string(<-done), string(want)+"!"; got != want {
		t.Errorf("read %q, want %q", got, want)
	}
}
