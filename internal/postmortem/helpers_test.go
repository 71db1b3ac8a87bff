package postmortem

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// realDumps are the outputs of scripts/make-vmcore.sh.
type realDumps struct {
	VMCORE, KDUMP, FLAT, VMLINUX, KernelVersion string
}

// findRealDumps locates the script's output: TRIAGE_VMCORE/TRIAGE_VMLINUX
// (and TRIAGE_VMCORE_KDUMP/TRIAGE_VMCORE_FLAT), else the cache's vmcore.env.
// It skips the test when neither exists.
func findRealDumps(t *testing.T) realDumps {
	t.Helper()
	d := realDumps{
		VMCORE: os.Getenv("TRIAGE_VMCORE"), VMLINUX: os.Getenv("TRIAGE_VMLINUX"),
		KDUMP: os.Getenv("TRIAGE_VMCORE_KDUMP"), FLAT: os.Getenv("TRIAGE_VMCORE_FLAT"),
	}
	if d.VMCORE == "" {
		d = readEnvFile(t)
	}
	if d.VMCORE == "" || d.VMLINUX == "" {
		t.Skip("no kernel vmcore: run scripts/make-vmcore.sh (needs qemu-system-x86, busybox-static, cpio, crash, python3-drgn) or set TRIAGE_VMCORE and TRIAGE_VMLINUX")
	}
	for _, p := range []string{d.VMCORE, d.VMLINUX} {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("kernel vmcore listed but unreadable (rerun scripts/make-vmcore.sh): %v", err)
		}
	}
	return d
}

func readEnvFile(t *testing.T) realDumps {
	root := os.Getenv("TRIAGE_CACHE")
	if root == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return realDumps{}
		}
		root = filepath.Join(home, ".cache", "triage")
	}
	f, err := os.Open(filepath.Join(root, "vmcore", "vmcore.env"))
	if err != nil {
		return realDumps{}
	}
	defer f.Close()
	var d realDumps
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), "=")
		switch k {
		case "VMCORE":
			d.VMCORE = v
		case "VMCORE_KDUMP":
			d.KDUMP = v
		case "VMCORE_FLAT":
			d.FLAT = v
		case "VMLINUX":
			d.VMLINUX = v
		case "KERNEL_VERSION":
			d.KernelVersion = v
		}
	}
	return d
}

type testNote struct {
	name string
	typ  uint32
	desc []byte
}

// elfCore builds a little-endian ELF64 ET_CORE for x86-64 with one PT_NOTE
// segment holding notes (raw, when not nil, replaces the encoded notes).
func elfCore(notes []testNote, raw []byte) []byte {
	le := binary.LittleEndian
	var nb bytes.Buffer
	for _, n := range notes {
		name := append([]byte(n.name), 0)
		binary.Write(&nb, le, uint32(len(name)))
		binary.Write(&nb, le, uint32(len(n.desc)))
		binary.Write(&nb, le, n.typ)
		nb.Write(pad4(name))
		nb.Write(pad4(n.desc))
	}
	if raw != nil {
		nb.Reset()
		nb.Write(raw)
	}
	const ehsize, phentsize = 64, 56
	var b bytes.Buffer
	b.Write([]byte{0x7f, 'E', 'L', 'F', 2, 1, 1, 0})
	b.Write(make([]byte, 8))
	binary.Write(&b, le, uint16(4))  // ET_CORE
	binary.Write(&b, le, uint16(62)) // EM_X86_64
	binary.Write(&b, le, uint32(1))
	binary.Write(&b, le, uint64(0))      // entry
	binary.Write(&b, le, uint64(ehsize)) // phoff
	binary.Write(&b, le, uint64(0))      // shoff
	binary.Write(&b, le, uint32(0))      // flags
	binary.Write(&b, le, uint16(ehsize)) // ehsize
	binary.Write(&b, le, uint16(phentsize))
	binary.Write(&b, le, uint16(1)) // phnum
	binary.Write(&b, le, uint16(0)) // shentsize
	binary.Write(&b, le, uint16(0)) // shnum
	binary.Write(&b, le, uint16(0)) // shstrndx
	off := uint64(ehsize + phentsize)
	binary.Write(&b, le, uint32(4)) // PT_NOTE
	binary.Write(&b, le, uint32(0))
	binary.Write(&b, le, off)
	binary.Write(&b, le, uint64(0))
	binary.Write(&b, le, uint64(0))
	binary.Write(&b, le, uint64(nb.Len()))
	binary.Write(&b, le, uint64(0))
	binary.Write(&b, le, uint64(4))
	b.Write(nb.Bytes())
	return b.Bytes()
}

func pad4(b []byte) []byte {
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

// kdumpFile builds a makedumpfile compressed header (64-bit layout, little
// endian) with the given utsname release and machine, and, for version >= 3,
// a sub-header pointing at vmcoreinfo placed after it.
func kdumpFile(version uint32, release, machine string, blockSize uint32, vmcoreinfo string) []byte {
	le := binary.LittleEndian
	b := make([]byte, 2*int(max(blockSize, 512))+len(vmcoreinfo))
	copy(b, "KDUMP   ")
	le.PutUint32(b[8:], version)
	copy(b[kdumpUtsnameOff+utsRelease*kdumpUtsFieldLen:], release)
	copy(b[kdumpUtsnameOff+utsMachine*kdumpUtsFieldLen:], machine)
	le.PutUint32(b[kdumpBlockSizeOff:], blockSize)
	le.PutUint32(b[kdumpNrCPUsOff:], 2)
	if version >= 3 && blockSize >= 512 && vmcoreinfo != "" {
		off := 2 * int(blockSize)
		le.PutUint64(b[int(blockSize)+subVmcoreinfoOff:], uint64(off))
		le.PutUint64(b[int(blockSize)+subVmcoreinfoOff+8:], uint64(len(vmcoreinfo)))
		copy(b[off:], vmcoreinfo)
	}
	return b
}

// flatten writes data as a makedumpfile flattened stream in records of at
// most chunk bytes, in the order given by order (a permutation of record
// indexes; nil means in order).
func flatten(data []byte, chunk int, order []int) []byte {
	var recs [][2]int
	for off := 0; off < len(data); off += chunk {
		recs = append(recs, [2]int{off, min(chunk, len(data)-off)})
	}
	if order == nil {
		for i := range recs {
			order = append(order, i)
		}
	}
	var b bytes.Buffer
	hdr := make([]byte, flatHeaderLen)
	copy(hdr, "makedumpfile")
	binary.BigEndian.PutUint64(hdr[16:], 1)
	binary.BigEndian.PutUint64(hdr[24:], 1)
	b.Write(hdr)
	for _, i := range order {
		r := recs[i]
		binary.Write(&b, binary.BigEndian, int64(r[0]))
		binary.Write(&b, binary.BigEndian, int64(r[1]))
		b.Write(data[r[0] : r[0]+r[1]])
	}
	binary.Write(&b, binary.BigEndian, int64(-1))
	binary.Write(&b, binary.BigEndian, int64(-1))
	return b.Bytes()
}

func writeTemp(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
