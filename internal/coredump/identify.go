package coredump

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// FileKind says what a file offered as a dump really is.
type FileKind string

const (
	KindUnknown      FileKind = "unknown"
	KindProcessCore  FileKind = "core"             // ELF ET_CORE of one process
	KindVmcore       FileKind = "vmcore"           // ELF kernel dump (kdump /proc/vmcore, with VMCOREINFO)
	KindKdumpCompact FileKind = "kdump-compressed" // makedumpfile/diskdump "KDUMP   " or "DISKDUMP"
	KindKdumpFlat    FileKind = "kdump-flattened"  // makedumpfile -F stream
	KindExecutable   FileKind = "executable"       // ELF ET_EXEC, or ET_DYN with an interpreter (PIE)
	KindSharedObject FileKind = "shared-object"    // ELF ET_DYN without an interpreter
	KindRelocatable  FileKind = "relocatable"      // ELF ET_REL (.o)
	KindMachOCore    FileKind = "macho-core"       // Mach-O MH_CORE (macOS core)
	KindMachO        FileKind = "macho"            // other Mach-O (executable, dylib, ...)
	KindAppleReport  FileKind = "apple-crash-report"
)

var (
	// ErrNotCore: the file is a known kind, but not a process core.
	ErrNotCore = errors.New("not a process core")
	// ErrKernelDump: the file is a kernel dump, for the crash/drgn engines.
	ErrKernelDump = errors.New("kernel dump, not a process core")
)

// KindError reports a file that is well-formed but of the wrong kind for the
// operation; it wraps ErrNotCore or ErrKernelDump.
type KindError struct {
	Path string
	Kind FileKind
	Err  error
}

func (e *KindError) Error() string {
	hint := ""
	switch e.Kind {
	case KindExecutable, KindSharedObject:
		hint = " (was the program passed as the core?)"
	case KindVmcore, KindKdumpCompact, KindKdumpFlat:
		hint = " (open it with the crash or drgn postmortem engine)"
	case KindAppleReport:
		hint = " (read it with ParseReport)"
	}
	return fmt.Sprintf("%s is a %s: %v%s", e.Path, e.Kind, e.Err, hint)
}

func (e *KindError) Unwrap() error { return e.Err }

var (
	kdumpMagic    = []byte("KDUMP   ")
	diskdumpMagic = []byte("DISKDUMP")
	flatMagic     = []byte("makedumpfile")
)

// Identify reads the start of path and says what kind of file it is. An empty
// file is ErrEmpty; an unreadable one returns the os error (errors.Is
// fs.ErrPermission / fs.ErrNotExist work); a file of no known kind is
// KindUnknown with ErrUnrecognizedFormat.
func Identify(path string) (FileKind, error) {
	f, err := os.Open(path)
	if err != nil {
		return KindUnknown, fmt.Errorf("identifying dump: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return KindUnknown, fmt.Errorf("identifying dump: %w", err)
	}
	if st.IsDir() {
		return KindUnknown, fmt.Errorf("identifying %s: %w: is a directory", path, ErrUnrecognizedFormat)
	}
	return identifyReader(f, st.Size(), path)
}

func identifyReader(f io.ReaderAt, size int64, path string) (FileKind, error) {
	head := make([]byte, 4096)
	n, err := f.ReadAt(head, 0)
	if err != nil && err != io.EOF {
		return KindUnknown, fmt.Errorf("identifying %s: %w", path, err)
	}
	head = head[:n]
	switch {
	case n == 0:
		return KindUnknown, fmt.Errorf("identifying %s: %w: zero-length file", path, ErrEmpty)
	case bytes.HasPrefix(head, []byte(elf.ELFMAG)):
		return identifyELF(f, size, path)
	case bytes.HasPrefix(head, kdumpMagic), bytes.HasPrefix(head, diskdumpMagic):
		return KindKdumpCompact, nil
	case bytes.HasPrefix(head, flatMagic):
		return KindKdumpFlat, nil
	}
	if k, ok := identifyMachO(head); ok {
		return k, nil
	}
	if looksLikeAppleReport(head) {
		return KindAppleReport, nil
	}
	return KindUnknown, fmt.Errorf("identifying %s: %w: neither ELF, kdump, Mach-O nor an Apple crash report (%s)",
		path, ErrUnrecognizedFormat, looksLike(head))
}

func identifyELF(f io.ReaderAt, size int64, path string) (FileKind, error) {
	ef, err := elf.NewFile(f)
	if err != nil {
		if size < 64 || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return KindUnknown, &ParseError{Format: "elf", Offset: size, Err: ErrTruncated,
				What: fmt.Sprintf("file ends inside the ELF or program headers (%v)", err)}
		}
		return KindUnknown, &ParseError{Format: "elf", Err: ErrCorrupt, What: err.Error()}
	}
	defer ef.Close()
	switch ef.Type {
	case elf.ET_CORE:
		for _, p := range ef.Progs {
			if p.Type != elf.PT_NOTE {
				continue
			}
			notes, _ := readNotes(p.Open(), ef.ByteOrder, p.Filesz)
			for _, n := range notes {
				if n.name == "VMCOREINFO" {
					return KindVmcore, nil
				}
			}
		}
		return KindProcessCore, nil
	case elf.ET_EXEC:
		return KindExecutable, nil
	case elf.ET_DYN:
		for _, p := range ef.Progs {
			if p.Type == elf.PT_INTERP {
				return KindExecutable, nil
			}
		}
		return KindSharedObject, nil
	case elf.ET_REL:
		return KindRelocatable, nil
	}
	return KindUnknown, fmt.Errorf("identifying %s: %w: ELF type %v", path, ErrUnrecognizedFormat, ef.Type)
}

// identifyMachO recognises 64- and 32-bit Mach-O in either byte order.
func identifyMachO(head []byte) (FileKind, bool) {
	if len(head) < 16 {
		return "", false
	}
	const mhCore = 4
	for _, bo := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
		switch bo.Uint32(head) {
		case 0xfeedface, 0xfeedfacf:
			if bo.Uint32(head[12:]) == mhCore {
				return KindMachOCore, true
			}
			return KindMachO, true
		}
	}
	return "", false
}

// looksLike says what kind of content a file of no known format starts
// with, never quoting it: an error may reach a client that could not read
// the file itself (a path through a symlink to /etc/passwd).
func looksLike(head []byte) string {
	for _, c := range head {
		if (c < 0x20 || c > 0x7e) && c != '\n' && c != '\r' && c != '\t' {
			return "it starts with binary data"
		}
	}
	return "it is text"
}

// looksLikeAppleReport accepts a legacy text report or an .ips whose first
// line is a JSON header with a bug_type.
func looksLikeAppleReport(head []byte) bool {
	if looksLikeLegacyCrash(head) {
		return true
	}
	line, _, _ := bytes.Cut(bytes.TrimLeft(head, " \t\r\n"), []byte("\n"))
	var hdr ipsHeader
	return json.Unmarshal(line, &hdr) == nil && hdr.BugType != ""
}
