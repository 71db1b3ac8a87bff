package spawn

import (
	"bytes"
	"errors"
	"io"
	"os"
	"sync"
)

// MaxLineLen bounds the partial line held per stream for the Combined sink,
// so memory stays bounded whatever the child prints.
//
// Combined is a line view of both streams: every write to it is one or more
// whole lines, each ending in '\n'. To keep that true, a line longer than
// MaxLineLen is cut into MaxLineLen pieces and a stream's unterminated last
// line is given a '\n'; otherwise either could be glued to a line of the
// other stream. The Stdout and Stderr sinks always get the bytes verbatim.
const MaxLineLen = 64 << 10

const readBufSize = 64 << 10

// combiner serialises writes of whole lines from both streams to one sink.
type combiner struct {
	mu  sync.Mutex
	w   io.Writer
	err error // first write error; later writes are dropped
}

func (c *combiner) write(p []byte) {
	if len(p) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		_, c.err = c.w.Write(p)
	}
}

// stream copies one pipe to its sinks. A sink that fails is dropped and its
// error remembered, but reading continues so the child never blocks on a
// full pipe.
type stream struct {
	r       *os.File
	sink    io.Writer
	sinkErr error
	comb    *combiner // nil when there is no Combined sink
	pending []byte    // partial line not yet given to comb
	done    chan struct{}
	readErr error
}

func newStream(r *os.File, sink io.Writer, comb *combiner) *stream {
	return &stream{r: r, sink: sink, comb: comb, done: make(chan struct{})}
}

func (s *stream) run() {
	defer close(s.done)
	buf := make([]byte, readBufSize)
	for {
		n, err := s.r.Read(buf)
		if n > 0 {
			s.deliver(buf[:n])
		}
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, os.ErrDeadlineExceeded) && !errors.Is(err, os.ErrClosed) {
				s.readErr = err
			}
			break
		}
	}
	if s.comb != nil && len(s.pending) > 0 {
		s.comb.write(append(s.pending, '\n')) // an unterminated last line
		s.pending = nil
	}
}

func (s *stream) deliver(p []byte) {
	if s.sink != nil && s.sinkErr == nil {
		if _, err := s.sink.Write(p); err != nil {
			s.sinkErr = err
		}
	}
	if s.comb == nil {
		return
	}
	nl := bytes.LastIndexByte(p, '\n')
	if nl < 0 {
		s.pending = append(s.pending, p...)
		for len(s.pending) >= MaxLineLen {
			piece := append(s.pending[:MaxLineLen:MaxLineLen], '\n') // copies: cap is full
			s.comb.write(piece)
			s.pending = append(s.pending[:0], s.pending[MaxLineLen:]...)
		}
		return
	}
	if len(s.pending) > 0 {
		// Completes the held line: one write keeps it atomic.
		s.pending = append(s.pending, p[:nl+1]...)
		s.comb.write(s.pending)
		s.pending = s.pending[:0]
	} else {
		s.comb.write(p[:nl+1])
	}
	s.pending = append(s.pending, p[nl+1:]...)
}
