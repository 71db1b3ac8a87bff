package postmortem

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/triage-dev/triage/internal/coredump"
)

// DumpInfo says what a dump file is and which kernel, if any, it holds.
type DumpInfo struct {
	Path string            `json:"path"`
	Size int64             `json:"size"`
	Kind coredump.FileKind `json:"kind"` // vmcore, kdump-compressed, kdump-flattened, core, macho-core
	// Kernel is set for kernel dumps (crash, drgn); process cores are for gdb, lldb (and drgn).
	Kernel bool `json:"kernel"`
	// Producer is "qemu" for QEMU dump-guest-memory output, "kdump" for an
	// ELF vmcore with VMCOREINFO and no QEMU notes, "makedumpfile" for the
	// compressed and flattened formats, empty when unknown.
	Producer   string `json:"producer,omitempty"`
	Arch       string `json:"arch,omitempty"`
	CPUs       int    `json:"cpus,omitempty"`
	VMCOREINFO bool   `json:"vmcoreinfo"` // the dump carries VMCOREINFO (drgn needs it)
	OSRelease  string `json:"os_release,omitempty"`
	BuildID    string `json:"build_id,omitempty"` // the kernel's GNU build ID, hex, from VMCOREINFO
}

// DefaultEngine is the engine a command without a prefix goes to.
func (d *DumpInfo) DefaultEngine() Engine {
	switch {
	case d.Kernel:
		return EngineCrash
	case d.Kind == coredump.KindMachOCore:
		return EngineLLDB
	}
	return EngineGDB
}

// ErrNotDump: the file is readable and of a known kind, but no engine
// analyses it as a dump (an executable, a crash report, a shared object).
var ErrNotDump = errors.New("not a dump")

// maxNotesSize bounds how much of an ELF core's PT_NOTE segments Inspect
// reads: a kernel dump has one small note set per CPU plus VMCOREINFO.
const maxNotesSize = 64 << 20

// Inspect identifies a dump without an engine: its container format, whether
// it is a kernel dump, and the kernel release and build ID from VMCOREINFO
// when the dump carries it. Errors: those of coredump.Identify (ErrEmpty,
// ErrUnrecognizedFormat, *ParseError, fs errors) and ErrNotDump.
func Inspect(path string) (*DumpInfo, error) {
	kind, err := coredump.Identify(path)
	if err != nil {
		return nil, fmt.Errorf("inspecting dump: %w", err)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("inspecting dump: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("inspecting dump: %w", err)
	}
	info := &DumpInfo{Path: path, Size: st.Size(), Kind: kind}
	switch kind {
	case coredump.KindVmcore, coredump.KindProcessCore:
		err = info.inspectELF(f)
	case coredump.KindKdumpCompact:
		info.Kernel, info.Producer = true, "makedumpfile"
		err = info.inspectKdump(f)
	case coredump.KindKdumpFlat:
		info.Kernel, info.Producer = true, "makedumpfile"
		err = info.inspectKdump(&flatReader{r: f})
	case coredump.KindMachOCore:
	default:
		return nil, fmt.Errorf("inspecting dump: %s is a %s: %w", path, kind, ErrNotDump)
	}
	if err != nil {
		return nil, fmt.Errorf("inspecting dump %s: %w", path, err)
	}
	return info, nil
}

// inspectELF reads an ET_CORE's notes. coredump.Identify calls an ET_CORE
// without VMCOREINFO a process core, but QEMU's dump of a guest that never
// published VMCOREINFO is a kernel dump too: its "QEMU" notes give it away.
func (d *DumpInfo) inspectELF(r io.ReaderAt) error {
	ef, err := elf.NewFile(r)
	if err != nil {
		return err
	}
	defer ef.Close()
	d.Arch = coredump.ArchName(ef)
	var qemu bool
	var prstatus int
	var total uint64
	for _, p := range ef.Progs {
		if p.Type != elf.PT_NOTE {
			continue
		}
		if total += p.Filesz; total > maxNotesSize {
			return fmt.Errorf("notes larger than %d bytes", maxNotesSize)
		}
		buf := make([]byte, p.Filesz)
		if _, err := p.ReadAt(buf, 0); err != nil {
			return fmt.Errorf("reading notes: %w", err)
		}
		for _, n := range parseNotes(buf, ef.ByteOrder) {
			switch {
			case n.name == "CORE" && n.typ == uint32(elf.NT_PRSTATUS):
				prstatus++
			case n.name == "QEMU":
				qemu = true
			case n.name == "VMCOREINFO":
				d.VMCOREINFO = true
				d.setVMCOREINFO(n.desc)
			}
		}
	}
	d.Kernel = d.VMCOREINFO || qemu
	if !d.Kernel {
		return nil
	}
	d.Kind = coredump.KindVmcore
	d.CPUs = prstatus
	d.Producer = "kdump"
	if qemu {
		d.Producer = "qemu"
	}
	return nil
}

func (d *DumpInfo) setVMCOREINFO(text []byte) {
	vi := parseVMCOREINFO(text)
	d.OSRelease = vi["OSRELEASE"]
	d.BuildID = vi["BUILD-ID"]
}

type note struct {
	name string
	typ  uint32
	desc []byte
}

// parseNotes splits an ELF note segment, stopping at the first malformed entry.
func parseNotes(b []byte, bo binary.ByteOrder) []note {
	var notes []note
	for len(b) >= 12 {
		namesz, descsz, typ := uint64(bo.Uint32(b)), uint64(bo.Uint32(b[4:])), bo.Uint32(b[8:])
		b = b[12:]
		nameEnd, descStart := namesz, align4(namesz)
		descEnd := descStart + descsz
		if descStart > uint64(len(b)) || descEnd > uint64(len(b)) {
			break
		}
		name := b[:nameEnd]
		for len(name) > 0 && name[len(name)-1] == 0 {
			name = name[:len(name)-1]
		}
		notes = append(notes, note{name: string(name), typ: typ, desc: b[descStart:descEnd]})
		b = b[min(align4(descEnd), uint64(len(b))):]
	}
	return notes
}

func align4(n uint64) uint64 { return (n + 3) &^ 3 }
