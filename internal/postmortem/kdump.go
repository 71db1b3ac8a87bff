package postmortem

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
)

// The makedumpfile formats. The compressed format starts with a
// disk_dump_header, then one block later a kdump_sub_header that locates the
// VMCOREINFO text (header_version >= 3). Offsets below are for 64-bit dumps,
// the only ones whose VMCOREINFO Inspect reads.
const (
	kdumpUtsnameOff   = 12 // struct new_utsname: 6 fields of 65 bytes
	kdumpUtsFieldLen  = 65
	kdumpBlockSizeOff = 428
	kdumpNrCPUsOff    = 460
	kdumpHeaderLen    = 464
	subVmcoreinfoOff  = 32 // off_t offset_vmcoreinfo; unsigned long size_vmcoreinfo follows
	maxVmcoreinfoLen  = 1 << 20
	flatHeaderLen     = 4096 // MAX_SIZE_MDF_HEADER
	maxFlatRecords    = 1 << 20
)

// utsname field indexes.
const (
	utsRelease = 2
	utsMachine = 4
)

// inspectKdump reads a compressed kdump header through r, which is the file
// itself or a flatReader reassembling a flattened stream.
func (d *DumpInfo) inspectKdump(r io.ReaderAt) error {
	h := make([]byte, kdumpHeaderLen)
	if _, err := r.ReadAt(h, 0); err != nil {
		return fmt.Errorf("reading kdump header: %w", err)
	}
	if !bytes.HasPrefix(h, []byte("KDUMP   ")) {
		// DISKDUMP (the old diskdump format) has no VMCOREINFO to read.
		return nil
	}
	version := binary.LittleEndian.Uint32(h[8:])
	bo, blockSize := kdumpByteOrder(h)
	if bo == nil {
		return fmt.Errorf("kdump header: implausible block size")
	}
	if bo == binary.ByteOrder(binary.BigEndian) {
		version = binary.BigEndian.Uint32(h[8:])
	}
	d.Arch = utsField(h, utsMachine)
	d.OSRelease = utsField(h, utsRelease)
	if n := int32(bo.Uint32(h[kdumpNrCPUsOff:])); n > 0 && n < 1<<16 {
		d.CPUs = int(n)
	}
	if version < 3 {
		return nil
	}
	sub := make([]byte, subVmcoreinfoOff+16)
	if _, err := r.ReadAt(sub, int64(blockSize)); err != nil {
		return fmt.Errorf("reading kdump sub-header: %w", err)
	}
	off, size := int64(bo.Uint64(sub[subVmcoreinfoOff:])), bo.Uint64(sub[subVmcoreinfoOff+8:])
	if off <= 0 || size == 0 || size > maxVmcoreinfoLen {
		return nil
	}
	text := make([]byte, size)
	if _, err := r.ReadAt(text, off); err != nil {
		return fmt.Errorf("reading VMCOREINFO at %d: %w", off, err)
	}
	d.VMCOREINFO = true
	release := d.OSRelease
	d.setVMCOREINFO(text)
	if d.OSRelease == "" {
		d.OSRelease = release // QEMU fills only utsname.machine; VMCOREINFO is the better source
	}
	return nil
}

// kdumpByteOrder picks the byte order in which block_size is a power of two
// between 512 bytes and 1 MiB: the header is in the dumped machine's order.
func kdumpByteOrder(h []byte) (binary.ByteOrder, uint32) {
	for _, bo := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
		bs := bo.Uint32(h[kdumpBlockSizeOff:])
		if bs >= 512 && bs <= 1<<20 && bs&(bs-1) == 0 {
			return bo, bs
		}
	}
	return nil, 0
}

func utsField(h []byte, i int) string {
	start := kdumpUtsnameOff + i*kdumpUtsFieldLen
	f := h[start : start+kdumpUtsFieldLen]
	if n := bytes.IndexByte(f, 0); n >= 0 {
		f = f[:n]
	}
	return strings.TrimSpace(string(f))
}

// parseVMCOREINFO reads KEY=VALUE lines; malformed lines are skipped.
func parseVMCOREINFO(text []byte) map[string]string {
	vi := make(map[string]string)
	for line := range strings.SplitSeq(string(text), "\n") {
		k, v, ok := strings.Cut(strings.TrimRight(line, "\r\x00"), "=")
		if ok && k != "" {
			vi[k] = v
		}
	}
	return vi
}

// errFlatEnd: the flattened stream ended before the requested bytes appeared.
var errFlatEnd = errors.New("flattened stream has no data for the requested range")

// flatReader reads the reassembled file of a makedumpfile flattened stream
// without reassembling it: after a 4 KiB header, the stream is records of a
// big-endian (offset, size) int64 pair followed by size bytes destined for
// offset, ended by (-1, -1). Each ReadAt walks the records from the start and
// stops once its range is filled (records do not overlap), so reading the
// header and VMCOREINFO,
// which makedumpfile writes first, touches only the stream's beginning.
type flatReader struct {
	r io.ReaderAt
}

func (f *flatReader) ReadAt(p []byte, off int64) (int, error) {
	want := int64(len(p))
	var filled int64
	pos := int64(flatHeaderLen)
	var rec [16]byte
	for i := 0; i < maxFlatRecords && filled < want; i++ {
		if _, err := f.r.ReadAt(rec[:], pos); err != nil {
			return 0, fmt.Errorf("reading flattened record at %d: %w", pos, err)
		}
		recOff, recLen := int64(binary.BigEndian.Uint64(rec[:])), int64(binary.BigEndian.Uint64(rec[8:]))
		if recOff == -1 && recLen == -1 {
			break
		}
		if recOff < 0 || recLen < 0 || recLen > 1<<40 {
			return 0, fmt.Errorf("flattened record at %d: bad (offset %d, size %d)", pos, recOff, recLen)
		}
		data := pos + 16
		lo, hi := max(recOff, off), min(recOff+recLen, off+want)
		if lo < hi {
			if _, err := f.r.ReadAt(p[lo-off:hi-off], data+(lo-recOff)); err != nil {
				return 0, fmt.Errorf("reading flattened data at %d: %w", data, err)
			}
			filled += hi - lo
		}
		pos = data + recLen
	}
	if filled < want {
		return int(filled), errFlatEnd
	}
	return len(p), nil
}
