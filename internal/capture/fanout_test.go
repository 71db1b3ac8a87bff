package capture

import (
	"bytes"
	"slices"
	"testing"
	"time"
)

// blockRecorder records the size of each block it is handed; the first
// write waits for release.
type blockRecorder struct {
	got     chan int
	release chan struct{}
	sizes   []int
}

func (r *blockRecorder) Write(p []byte) (int, error) {
	if len(r.sizes) == 0 {
		r.got <- len(p)
		<-r.release
	}
	r.sizes = append(r.sizes, len(p))
	return len(p), nil
}

// A burst of output (a cached go test prints its whole output as it ends)
// reaches an idle consumer before the block fills or the stream ends; what
// comes while the consumer is busy gathers into one block.
func TestFanoutHandsABurstToIdleConsumers(t *testing.T) {
	rec := &blockRecorder{got: make(chan int, 1), release: make(chan struct{})}
	f := newFanout(rec)
	chunk := bytes.Repeat([]byte("x"), earlySize+100)
	f.Write(chunk)
	select {
	case n := <-rec.got:
		if n != len(chunk) {
			t.Fatalf("the first block holds %d bytes, want %d", n, len(chunk))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a block of earlySize bytes was not handed to the idle consumer before the stream's end")
	}
	f.Write(chunk) // the consumer is busy: these two gather
	f.Write(chunk)
	close(rec.release)
	f.Close()
	if want := []int{len(chunk), 2 * len(chunk)}; !slices.Equal(rec.sizes, want) {
		t.Errorf("blocks %v, want %v", rec.sizes, want)
	}
}

// A trickle of lines to an idle consumer waits for a flush: a block per
// line would cost a write per line.
func TestFanoutKeepsSmallWritesForAFlush(t *testing.T) {
	rec := &blockRecorder{got: make(chan int, 1), release: make(chan struct{})}
	close(rec.release)
	f := newFanout(rec)
	for range 100 {
		f.Write([]byte("a line\n"))
	}
	f.Close()
	if want := []int{700}; !slices.Equal(rec.sizes, want) {
		t.Errorf("blocks %v, want %v", rec.sizes, want)
	}
}
