package coredump

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"io"
)

// Note types in a Linux process core (include/uapi/linux/elf.h).
const (
	ntPrstatus = 1
	ntPrpsinfo = 3
	ntAuxv     = 6
	ntSiginfo  = 0x53494749
	ntFile     = 0x46494c45

	atEntry  = 9
	atExecfn = 31
)

type elfNote struct {
	name string
	typ  uint32
	desc []byte
}

// maxNotesSize bounds a PT_NOTE segment; real ones are a few hundred KiB even
// for many threads.
const maxNotesSize = 64 << 20

// readNotes splits a PT_NOTE segment into notes. Core notes are 4-byte
// aligned on every architecture.
func readNotes(r io.Reader, bo binary.ByteOrder, size uint64) ([]elfNote, error) {
	if size > maxNotesSize {
		return nil, fmt.Errorf("note segment of %d bytes: %w", size, ErrTooLarge)
	}
	buf := make([]byte, size)
	if n, err := io.ReadFull(r, buf); err != nil {
		return nil, fmt.Errorf("note segment cut at byte %d of %d: %w", n, size, ErrTruncated)
	}
	var notes []elfNote
	for off := uint64(0); off+12 <= size; {
		namesz, descsz, typ := uint64(bo.Uint32(buf[off:])), uint64(bo.Uint32(buf[off+4:])), bo.Uint32(buf[off+8:])
		off += 12
		if off+namesz > size || off+align4(namesz)+descsz > size {
			return notes, fmt.Errorf("note %d (type %#x) overruns its segment at byte %d: %w", len(notes), typ, off, ErrCorrupt)
		}
		name := string(bytes.TrimRight(buf[off:off+namesz], "\x00"))
		off += align4(namesz)
		notes = append(notes, elfNote{name: name, typ: typ, desc: buf[off : off+descsz]})
		off += align4(descsz)
	}
	return notes, nil
}

func align4(n uint64) uint64 { return (n + 3) &^ 3 }

// wordReader reads native words of a core's class and byte order.
type wordReader struct {
	bo    binary.ByteOrder
	is64  bool
	bytes int
}

func newWordReader(ef *elf.File) wordReader {
	w := wordReader{bo: ef.ByteOrder, is64: ef.Class == elf.ELFCLASS64, bytes: 4}
	if w.is64 {
		w.bytes = 8
	}
	return w
}

func (w wordReader) word(b []byte, off int) (uint64, bool) {
	if off < 0 || off+w.bytes > len(b) {
		return 0, false
	}
	if w.is64 {
		return w.bo.Uint64(b[off:]), true
	}
	return uint64(w.bo.Uint32(b[off:])), true
}

func (w wordReader) u32(b []byte, off int) (uint32, bool) {
	if off < 0 || off+4 > len(b) {
		return 0, false
	}
	return w.bo.Uint32(b[off:]), true
}

// prstatus reads pid and the current signal from struct elf_prstatus:
// elf_siginfo (3 ints), short pr_cursig, then pr_sigpend and pr_sighold
// (unsigned long each), then pr_pid, pr_ppid.
func (w wordReader) prstatus(d []byte) (pid, ppid, sig int) {
	cursig := 0
	if len(d) >= 14 {
		cursig = int(int16(w.bo.Uint16(d[12:])))
	}
	pidOff := 16 + 2*w.bytes
	p, _ := w.u32(d, pidOff)
	pp, _ := w.u32(d, pidOff+4)
	return int(int32(p)), int(int32(pp)), cursig
}

// prpsinfo reads struct elf_prpsinfo: 4 chars, unsigned long pr_flag, uid,
// gid, pid, ppid, pgrp, sid, pr_fname[16], pr_psargs[80]. uid and gid are
// 32-bit on 64-bit ABIs and 16-bit on i386/arm, which the size tells apart.
func (w wordReader) prpsinfo(d []byte) (uid, gid int, ids procIDs, fname, args string) {
	off := 4
	if w.is64 {
		off = 8
	}
	off += w.bytes // pr_flag
	idSize := 4
	if !w.is64 && len(d) == 124 {
		idSize = 2
	}
	readID := func(at int) int {
		if at+idSize > len(d) {
			return -1
		}
		if idSize == 2 {
			return int(w.bo.Uint16(d[at:]))
		}
		return int(w.bo.Uint32(d[at:]))
	}
	uid, gid = readID(off), readID(off+idSize)
	off += 2 * idSize
	for i, id := range []*int{&ids.pid, &ids.ppid, &ids.pgrp, &ids.sid} {
		v, _ := w.u32(d, off+4*i)
		*id = int(int32(v))
	}
	off += 16 // pid, ppid, pgrp, sid
	fname = cString(d, off, 16)
	args = cString(d, off+16, 80)
	return uid, gid, ids, fname, args
}

// procIDs are the process ids struct elf_prpsinfo records.
type procIDs struct{ pid, ppid, pgrp, sid int }

// siginfo reads signo, code and, for faults, si_addr from siginfo_t; the
// union starts after three ints, aligned to a word.
func (w wordReader) siginfo(d []byte) (signo, code int, addr uint64) {
	s, _ := w.u32(d, 0)
	c, _ := w.u32(d, 8)
	signo, code = int(int32(s)), int(int32(c))
	unionOff := 12
	if w.is64 {
		unionOff = 16
	}
	addr, _ = w.word(d, unionOff)
	return signo, code, addr
}

// auxv returns the auxiliary vector as a map of type to value.
func (w wordReader) auxv(d []byte) map[uint64]uint64 {
	m := make(map[uint64]uint64)
	for off := 0; ; off += 2 * w.bytes {
		k, ok1 := w.word(d, off)
		v, ok2 := w.word(d, off+w.bytes)
		if !ok1 || !ok2 || k == 0 {
			return m
		}
		m[k] = v
	}
}

// fileMappings reads NT_FILE: count, page size, count × (start, end,
// file offset in pages), then count NUL-terminated names.
func (w wordReader) fileMappings(d []byte) ([]Mapping, error) {
	count, ok1 := w.word(d, 0)
	pageSize, ok2 := w.word(d, w.bytes)
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("NT_FILE note of %d bytes has no header: %w", len(d), ErrCorrupt)
	}
	if count > uint64(len(d)/(3*w.bytes)) {
		return nil, fmt.Errorf("NT_FILE claims %d mappings in %d bytes: %w", count, len(d), ErrCorrupt)
	}
	maps := make([]Mapping, count)
	off := 2 * w.bytes
	for i := range maps {
		maps[i].Start, _ = w.word(d, off)
		maps[i].End, _ = w.word(d, off+w.bytes)
		pgoff, _ := w.word(d, off+2*w.bytes)
		maps[i].Offset = pgoff * pageSize
		off += 3 * w.bytes
	}
	names := bytes.Split(d[min(off, len(d)):], []byte{0})
	if len(names) < len(maps) {
		return nil, fmt.Errorf("NT_FILE has %d names for %d mappings: %w", len(names), len(maps), ErrCorrupt)
	}
	for i := range maps {
		maps[i].Path = string(names[i])
	}
	return maps, nil
}

func cString(b []byte, off, max int) string {
	if off >= len(b) {
		return ""
	}
	s := b[off:min(off+max, len(b))]
	if i := bytes.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	return string(s)
}
