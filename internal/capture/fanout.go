package capture

import (
	"io"
	"sync"
	"sync/atomic"
)

// blockSize is the unit handed from the output reader to the consumers.
const blockSize = 256 << 10

// earlySize is the least a block holds to be handed to consumers that are
// idle before it fills: a runner that prints its whole output as it ends
// (a cached go test, 120 KB at once) has it read while it writes the rest
// and exits, not after. A busy consumer's blocks still fill, and a trickle
// of lines waits for a Flush.
const earlySize = 32 << 10

// depth is the number of blocks in flight; with one being filled, memory is
// bounded by (depth+1) blocks whatever the output size.
const depth = 4

// fanout copies a stream to several writers, each in its own goroutine, so
// that scanning for crash indicators and storing the output run on separate
// cores. Bytes are batched into blocks; each consumer sees every block, in
// order. When every block is in flight the producer waits for a consumer to
// finish one: a slow consumer slows the producer instead of growing a queue.
//
// Write and Flush may be called from different goroutines (mu); Close must be
// called once, after the last Write.
type fanout struct {
	mu     sync.Mutex
	buf    *block // being filled; guarded by mu
	blocks int    // allocated so far; guarded by mu
	free   chan *block
	chans  []chan *block
	wg     sync.WaitGroup
	// inflight counts the blocks sent and not yet written by every
	// consumer: zero when all are idle.
	inflight atomic.Int32
}

type block struct {
	b    []byte
	left atomic.Int32 // consumers yet to write it
}

func newFanout(ws ...io.Writer) *fanout {
	// Blocks are allocated as output arrives (and grow to blockSize as they
	// fill), so a run that prints a line costs a line, not 1 MiB.
	f := &fanout{free: make(chan *block, depth+1), buf: &block{}, blocks: 1}
	for _, w := range ws {
		ch := make(chan *block, depth)
		f.chans = append(f.chans, ch)
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			var failed bool
			for blk := range ch {
				if !failed {
					// A consumer that fails (a full disk for the store) stops
					// writing; the others, and the process, go on. The failure
					// is the consumer's own to report.
					_, err := w.Write(blk.b)
					failed = err != nil
				}
				if blk.left.Add(-1) == 0 {
					f.inflight.Add(-1)
					blk.b = blk.b[:0]
					f.free <- blk
				}
			}
		}()
	}
	return f
}

func (f *fanout) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		k := min(len(p), blockSize-len(f.buf.b))
		f.buf.b = append(f.buf.b, p[:k]...)
		p = p[k:]
		if len(f.buf.b) == blockSize {
			f.sendLocked()
		}
	}
	if len(f.buf.b) >= earlySize && f.inflight.Load() == 0 {
		f.sendLocked()
	}
	return n, nil
}

func (f *fanout) sendLocked() {
	if len(f.buf.b) == 0 {
		return
	}
	blk := f.buf
	blk.left.Store(int32(len(f.chans)))
	f.inflight.Add(1)
	for _, ch := range f.chans {
		ch <- blk
	}
	select {
	case f.buf = <-f.free:
	default:
		if f.blocks <= depth {
			f.blocks++
			f.buf = &block{}
		} else {
			f.buf = <-f.free // every block is in flight: wait for one
		}
	}
}

// Flush hands what is buffered to the consumers (for outputs read while the
// program still runs).
func (f *fanout) Flush() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sendLocked()
}

// Close sends the rest and waits until every consumer has written everything.
func (f *fanout) Close() {
	f.Flush()
	for _, ch := range f.chans {
		close(ch)
	}
	f.wg.Wait()
}
