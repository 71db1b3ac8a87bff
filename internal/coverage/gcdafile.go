package coverage

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
)

// gcc's coverage files, read without gcov. The notes (.gcno) are what the
// compiler wrote beside each object: every function's basic blocks, the
// arcs between them, and the source lines of each block. The data (.gcda)
// is what a test program wrote as it exited: the counts of the arcs that
// are not on the function's spanning tree; the other arcs' counts follow
// from flow conservation. Only the format of gcc 12 and later is read
// (record lengths and strings in bytes); anything else makes the caller
// run gcov instead (errGcovNative).

// Tags and flags of gcc's gcov-io.h.
const (
	gcovMagicNotes   = 0x67636e6f // "gcno", as a little-endian word
	gcovMagicData    = 0x67636461 // "gcda"
	gcovTagFunction  = 0x01000000
	gcovTagBlocks    = 0x01410000
	gcovTagArcs      = 0x01430000
	gcovTagLines     = 0x01450000
	gcovTagArcCounts = 0x01a10000
	gcovArcOnTree    = 1
	// gcovFunctionLength is a data file's function record: its ident
	// and two checksums.
	gcovFunctionLength = 12
)

// errGcovNative says the files are not ones read here; gcov reads them.
var errGcovNative = errors.New("not read without gcov")

// gcovNotes is one object's notes file.
type gcovNotes struct {
	stamp uint32
	cwd   string
	funcs []*gcovFunc
}

// gcovFunc is a function of the notes, with its counts once the data is
// read.
type gcovFunc struct {
	ident, linenoSum, cfgSum uint32
	name, file               string
	artificial               bool
	start, end               int
	blocks                   int
	arcs                     []gcovArc
	locs                     [][]gcovLocation // by block
	counts                   []int64          // one per arc off the tree, in block order

	// What solve finds: every arc's and block's count, and each block's
	// arcs (indexes into arcs).
	arcCount, blockCount []int64
	succs, preds         [][]int
}

type gcovArc struct {
	src, dst int
	onTree   bool
}

// gcovLocation is a run of a block's lines in one file.
type gcovLocation struct {
	file  string
	lines []int
}

// gcovWords reads gcc's little-endian words and strings; a read past the
// end sets bad and reads zeros.
type gcovWords struct {
	b   []byte
	i   int
	bad bool
}

func (r *gcovWords) u32() uint32 {
	if r.i+4 > len(r.b) {
		r.bad, r.i = true, len(r.b)
		return 0
	}
	v := binary.LittleEndian.Uint32(r.b[r.i:])
	r.i += 4
	return v
}

// u64 reads a counter: its low word, then its high word.
func (r *gcovWords) u64() uint64 {
	lo := r.u32()
	return uint64(r.u32())<<32 | uint64(lo)
}

// str reads a string: its length in bytes, its terminating NUL included,
// then its bytes. The empty string has length 0.
func (r *gcovWords) str() string {
	n := int(r.u32())
	if n < 0 || r.i+n > len(r.b) {
		r.bad, r.i = true, len(r.b)
		return ""
	}
	s := r.b[r.i : r.i+n]
	r.i += n
	return strings.TrimRight(string(s), "\x00")
}

// header reads a file's magic and version: gcc 12 or later, whose
// version word is the characters of "B22*" (12.2) and so on, the first
// letter counting hundreds from 'A'.
func (r *gcovWords) header(magic uint32) error {
	if r.u32() != magic {
		return fmt.Errorf("%w: not gcc's file", errGcovNative)
	}
	v := r.u32()
	c0, c1, c2 := byte(v>>24), byte(v>>16), byte(v>>8)
	if c0 < 'A' || c0 > 'Z' || c1 < '0' || c1 > '9' || c2 < '0' || c2 > '9' {
		return fmt.Errorf("%w: version %08x", errGcovNative, v)
	}
	if version := int(c0-'A')*100 + int(c1-'0')*10 + int(c2-'0'); version < 120 {
		return fmt.Errorf("%w: gcc %d.%d writes lengths in words", errGcovNative, version/10, version%10)
	}
	return nil
}

// record reads a record's tag and length and returns a reader of its
// content; ok is false at the end of the file.
func (r *gcovWords) record() (tag uint32, length int32, ok bool) {
	if r.i+8 > len(r.b) {
		return 0, 0, false
	}
	tag = r.u32()
	length = int32(r.u32())
	return tag, length, tag != 0
}

// parseGcovNotes reads a notes file.
func parseGcovNotes(b []byte) (*gcovNotes, error) {
	r := &gcovWords{b: b}
	if err := r.header(gcovMagicNotes); err != nil {
		return nil, err
	}
	n := &gcovNotes{stamp: r.u32()}
	r.u32() // checksum
	n.cwd = r.str()
	r.u32() // whether unexecuted blocks are marked
	var fn *gcovFunc
	for {
		tag, length, ok := r.record()
		if !ok {
			break
		}
		end := r.i + int(length)
		if length < 0 || end > len(b) {
			return nil, fmt.Errorf("%w: a record runs past the notes' end", errGcovNative)
		}
		rec := &gcovWords{b: b[:end], i: r.i}
		var err error
		switch {
		case tag == gcovTagFunction:
			fn = readGcovFunction(rec)
			n.funcs = append(n.funcs, fn)
		case fn != nil && tag == gcovTagBlocks:
			// Every block but the exit has an arcs record of 12 bytes or
			// more: a count past that is a corrupt file, not memory to take.
			if fn.blocks = int(rec.u32()); fn.blocks > len(b)/12+2 {
				return nil, fmt.Errorf("%w: %d blocks in %d bytes of notes", errGcovNative, fn.blocks, len(b))
			}
			fn.locs = make([][]gcovLocation, fn.blocks)
		case fn != nil && tag == gcovTagArcs:
			err = fn.readArcs(rec)
		case fn != nil && tag == gcovTagLines:
			err = fn.readLines(rec)
		case tag>>24 != gcovTagFunction>>24:
			fn = nil // not one of a function's records: the function ended
		}
		if err != nil {
			return nil, err
		}
		if rec.bad {
			return nil, fmt.Errorf("%w: a record of tag %08x is cut short", errGcovNative, tag)
		}
		r.i = end
	}
	return n, nil
}

func readGcovFunction(r *gcovWords) *gcovFunc {
	fn := &gcovFunc{ident: r.u32(), linenoSum: r.u32(), cfgSum: r.u32(), name: r.str()}
	fn.artificial = r.u32() != 0
	fn.file = r.str()
	fn.start = int(r.u32())
	r.u32() // start column
	fn.end = int(r.u32())
	return fn
}

// readArcs reads a block's arcs; each one off the spanning tree gets a
// counter.
func (fn *gcovFunc) readArcs(r *gcovWords) error {
	src := int(r.u32())
	if src >= fn.blocks {
		return fmt.Errorf("%w: an arc from block %d of %d", errGcovNative, src, fn.blocks)
	}
	for r.i+8 <= len(r.b) {
		dst, flags := int(r.u32()), r.u32()
		if dst >= fn.blocks {
			return fmt.Errorf("%w: an arc to block %d of %d", errGcovNative, dst, fn.blocks)
		}
		fn.arcs = append(fn.arcs, gcovArc{src: src, dst: dst, onTree: flags&gcovArcOnTree != 0})
		if flags&gcovArcOnTree == 0 {
			fn.counts = append(fn.counts, 0)
		}
	}
	return nil
}

// readLines reads a block's lines: a 0 and a file name start a run of
// lines in that file, a 0 and an empty name end them.
func (fn *gcovFunc) readLines(r *gcovWords) error {
	block := int(r.u32())
	if block >= fn.blocks {
		return fmt.Errorf("%w: lines of block %d of %d", errGcovNative, block, fn.blocks)
	}
	for !r.bad {
		line := int(r.u32())
		if line != 0 {
			locs := fn.locs[block]
			if len(locs) == 0 {
				return fmt.Errorf("%w: a line before its file", errGcovNative)
			}
			locs[len(locs)-1].lines = append(locs[len(locs)-1].lines, line)
			continue
		}
		file := r.str()
		if file == "" {
			break
		}
		fn.locs[block] = append(fn.locs[block], gcovLocation{file: file})
	}
	return nil
}

// readData adds a data file's counts to the notes' functions. The data
// must be of the same compilation (stamp) and each function of the same
// code (checksums), as gcov requires.
func (n *gcovNotes) readData(b []byte) error {
	r := &gcovWords{b: b}
	if err := r.header(gcovMagicData); err != nil {
		return err
	}
	if r.u32() != n.stamp {
		return fmt.Errorf("%w: the data's stamp is not its notes'", errGcovNative)
	}
	r.u32() // checksum
	byIdent := make(map[uint32]*gcovFunc, len(n.funcs))
	for _, fn := range n.funcs {
		byIdent[fn.ident] = fn
	}
	var fn *gcovFunc
	for {
		tag, length, ok := r.record()
		if !ok {
			break
		}
		size := max(int(length), 0) // a negative length: that many bytes of zero counts, not written
		if r.i+size > len(b) {
			return fmt.Errorf("%w: a record runs past the data's end", errGcovNative)
		}
		rec := &gcovWords{b: b[:r.i+size], i: r.i}
		switch {
		case tag == gcovTagFunction && length == 0: // a placeholder
		case tag == gcovTagFunction && length == gcovFunctionLength:
			fn = byIdent[rec.u32()]
			if fn != nil && (rec.u32() != fn.linenoSum || rec.u32() != fn.cfgSum) {
				return fmt.Errorf("%w: the data of %s is not of its notes' code", errGcovNative, fn.name)
			}
		case tag == gcovTagFunction:
			return fmt.Errorf("%w: a function record of %d bytes", errGcovNative, length)
		case tag == gcovTagArcCounts && fn != nil:
			if abs32(length) != int64(8*len(fn.counts)) {
				return fmt.Errorf("%w: %s has %d bytes of counts for %d arcs", errGcovNative, fn.name, length, len(fn.counts))
			}
			for i := 0; length > 0 && i < len(fn.counts); i++ {
				fn.counts[i] += int64(rec.u64())
			}
		}
		r.i += size
	}
	return nil
}

func abs32(v int32) int64 {
	if v < 0 {
		return -int64(v)
	}
	return int64(v)
}
