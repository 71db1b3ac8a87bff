package logfilter

const maxHeld = 8 // lines of a running Go test's output held back

// heldLines is a bounded FIFO of lines copied into reused buffers; once full,
// later lines are dropped (the first lines of a test's log usually say the
// most).
type heldLines struct {
	active bool
	n      int
	buf    [maxHeld][]byte
}

func (h *heldLines) reset(active bool) { h.active, h.n = active, 0 }

func (h *heldLines) add(line []byte) {
	if h.n == maxHeld {
		return
	}
	if len(line) > maxContextLen+64 {
		line = line[:maxContextLen+64]
	}
	h.buf[h.n] = append(h.buf[h.n][:0], line...)
	h.n++
}

func (h *heldLines) lines() [][]byte { return h.buf[:h.n] }
