package coredump

import (
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// CoreInfo is what a Linux process core says about itself, read from its ELF
// notes without a debugger.
type CoreInfo struct {
	Path string `json:"path"`
	Size int64  `json:"size"`
	Arch string `json:"arch"` // "x86_64", "aarch64", ...
	Pid  int    `json:"pid"`
	// PPid, Pgrp and Sid are the parent, process group and session of the
	// process (from NT_PRPSINFO; 0 when absent): they tell whether a core
	// is of a process a given run started.
	PPid    int    `json:"ppid,omitempty"`
	Pgrp    int    `json:"pgrp,omitempty"`
	Sid     int    `json:"sid,omitempty"`
	Program string `json:"program"` // pr_fname: the comm, at most 15 bytes
	Args    string `json:"args"`    // pr_psargs: the command line, at most 80 bytes
	Uid     int    `json:"uid"`
	Gid     int    `json:"gid"`
	// ExePath is the executable's path: the NT_FILE mapping that holds the
	// entry point, else the AT_EXECFN string from the dumped stack.
	ExePath    string `json:"exe_path,omitempty"`
	Signal     int    `json:"signal"`
	SignalName string `json:"signal_name"`
	SigCode    string `json:"sig_code,omitempty"` // "SEGV_MAPERR", "SI_TKILL", ...
	// FaultAddr is si_addr for a kernel-raised SIGSEGV/SIGBUS/SIGILL/SIGFPE.
	FaultAddr    uint64    `json:"fault_addr,omitempty"`
	HasFaultAddr bool      `json:"has_fault_addr,omitempty"`
	Threads      int       `json:"threads"`
	Mappings     []Mapping `json:"mappings,omitempty"`
	// Truncated is set when memory segments extend past the end of the file
	// (RLIMIT_CORE or a full disk cut the dump short); MissingBytes says how much.
	Truncated    bool  `json:"truncated,omitempty"`
	MissingBytes int64 `json:"missing_bytes,omitempty"`
}

// Mapping is one file-backed memory mapping of the crashed process (NT_FILE).
type Mapping struct {
	Start  uint64 `json:"start"`
	End    uint64 `json:"end"`
	Offset uint64 `json:"offset"`
	Path   string `json:"path"`
}

// OpenCore reads a Linux process core's notes. Errors say what the file is
// instead: ErrEmpty, ErrUnrecognizedFormat (not ELF), a *KindError wrapping
// ErrNotCore or ErrKernelDump (an executable, a vmcore), or a *ParseError
// wrapping ErrTruncated or ErrCorrupt.
func OpenCore(path string) (*CoreInfo, error) {
	kind, err := Identify(path)
	if err != nil {
		return nil, fmt.Errorf("opening core: %w", err)
	}
	switch kind {
	case KindProcessCore:
	case KindVmcore, KindKdumpCompact, KindKdumpFlat:
		return nil, &KindError{Path: path, Kind: kind, Err: ErrKernelDump}
	default:
		return nil, &KindError{Path: path, Kind: kind, Err: ErrNotCore}
	}
	ef, err := elf.Open(path)
	if err != nil {
		return nil, fmt.Errorf("opening core: %w", err)
	}
	defer ef.Close()
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("opening core: %w", err)
	}
	info := &CoreInfo{Path: path, Size: st.Size(), Arch: ArchName(ef), Uid: -1, Gid: -1}
	if err := info.readNotes(ef); err != nil {
		return nil, err
	}
	info.checkSegments(ef)
	return info, nil
}

func (c *CoreInfo) readNotes(ef *elf.File) error {
	w := newWordReader(ef)
	var auxv map[uint64]uint64
	found := false
	for _, p := range ef.Progs {
		if p.Type != elf.PT_NOTE {
			continue
		}
		if p.Off+p.Filesz > uint64(c.Size) {
			return &ParseError{Format: "elf core", Offset: c.Size, Err: ErrTruncated,
				What: fmt.Sprintf("notes segment needs bytes %d..%d", p.Off, p.Off+p.Filesz)}
		}
		notes, err := readNotes(p.Open(), ef.ByteOrder, p.Filesz)
		if err != nil {
			return &ParseError{Format: "elf core", Offset: int64(p.Off), Err: errors.Unwrap(err), What: err.Error()}
		}
		found = true
		for _, n := range notes {
			if n.name != "CORE" {
				continue
			}
			switch n.typ {
			case ntPrstatus:
				pid, _, sig := w.prstatus(n.desc)
				if c.Threads == 0 { // the first thread is the one that took the signal
					c.Pid, c.Signal = pid, sig
				}
				c.Threads++
			case ntPrpsinfo:
				var ids procIDs
				c.Uid, c.Gid, ids, c.Program, c.Args = w.prpsinfo(n.desc)
				if c.Pid == 0 {
					c.Pid = ids.pid
				}
				c.PPid, c.Pgrp, c.Sid = ids.ppid, ids.pgrp, ids.sid
				c.Args = strings.TrimSpace(c.Args)
			case ntSiginfo:
				sig, code, addr := w.siginfo(n.desc)
				if c.SigCode == "" {
					c.SigCode = siCodeName(sig, code)
					if faultSignal(sig, code) {
						c.FaultAddr, c.HasFaultAddr = addr, true
					}
				}
			case ntAuxv:
				auxv = w.auxv(n.desc)
			case ntFile:
				if maps, err := w.fileMappings(n.desc); err == nil {
					c.Mappings = maps
				}
			}
		}
	}
	if !found {
		return &ParseError{Format: "elf core", Err: ErrCorrupt, What: "core has no PT_NOTE segment"}
	}
	c.SignalName = SignalName(c.Signal)
	c.ExePath = c.exeFromAuxv(ef, auxv)
	return nil
}

// exeFromAuxv finds the executable: the mapping holding AT_ENTRY, or the
// AT_EXECFN string read from the dumped stack.
func (c *CoreInfo) exeFromAuxv(ef *elf.File, auxv map[uint64]uint64) string {
	if entry, ok := auxv[atEntry]; ok {
		for _, m := range c.Mappings {
			if entry >= m.Start && entry < m.End {
				return m.Path
			}
		}
	}
	if addr, ok := auxv[atExecfn]; ok {
		return readCString(ef, addr, 4096)
	}
	return ""
}

// readCString reads a NUL-terminated string from the core's memory image.
func readCString(ef *elf.File, addr uint64, max int) string {
	for _, p := range ef.Progs {
		if p.Type != elf.PT_LOAD || addr < p.Vaddr || addr >= p.Vaddr+p.Filesz {
			continue
		}
		buf := make([]byte, min(uint64(max), p.Vaddr+p.Filesz-addr))
		n, _ := p.ReadAt(buf, int64(addr-p.Vaddr))
		return cString(buf[:n], 0, n)
	}
	return ""
}

func (c *CoreInfo) checkSegments(ef *elf.File) {
	var end uint64
	for _, p := range ef.Progs {
		end = max(end, p.Off+p.Filesz)
	}
	if end > uint64(c.Size) {
		c.Truncated = true
		c.MissingBytes = int64(end) - c.Size
	}
}

// ArchName names an ELF file's architecture the way the tools that read
// cores and kernel dumps do ("x86_64", "aarch64", "riscv64"): the one table
// of machine names for cores and vmcores alike.
func ArchName(ef *elf.File) string {
	switch ef.Machine {
	case elf.EM_X86_64:
		return "x86_64"
	case elf.EM_386:
		return "i386"
	case elf.EM_AARCH64:
		return "aarch64"
	case elf.EM_ARM:
		return "arm"
	case elf.EM_RISCV:
		if ef.Class == elf.ELFCLASS32 {
			return "riscv32"
		}
		return "riscv64"
	case elf.EM_PPC64:
		if ef.Data == elf.ELFDATA2LSB {
			return "ppc64le"
		}
		return "ppc64"
	case elf.EM_S390:
		return "s390x"
	}
	return strings.ToLower(strings.TrimPrefix(ef.Machine.String(), "EM_"))
}

// ErrExeMismatch: a core was matched against a program it did not come from.
var ErrExeMismatch = errors.New("core does not match the executable")

// MatchExe checks that the core came from exe, comparing the executable path
// recorded in the core (same file, or same path) and else the program name
// (the kernel's comm: the basename cut to 15 bytes). A mismatch wraps
// ErrExeMismatch; it is a warning, since gdb can still be given both.
func (c *CoreInfo) MatchExe(exe string) error {
	if c.ExePath != "" {
		a, errA := os.Stat(c.ExePath)
		b, errB := os.Stat(exe)
		if errA == nil && errB == nil {
			if os.SameFile(a, b) {
				return nil
			}
			return fmt.Errorf("%w: core %s came from %s, not %s", ErrExeMismatch, c.Path, c.ExePath, exe)
		}
		if abs, err := filepath.Abs(exe); err == nil && abs == c.ExePath {
			return nil
		}
	}
	comm := filepath.Base(exe)
	if len(comm) > 15 {
		comm = comm[:15]
	}
	if c.Program == comm {
		return nil
	}
	return fmt.Errorf("%w: core %s is of program %q (%s), not %s", ErrExeMismatch, c.Path, c.Program, firstNonEmpty(c.ExePath, c.Args), exe)
}

// Summary renders the core in one or two lines:
// "core of /tmp/seg (pid 4242, uid 1000): SIGSEGV (SEGV_MAPERR) at address 0x0, x86_64, 1 thread".
func (c *CoreInfo) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "core of %s (pid %d", firstNonEmpty(c.ExePath, c.Program, "unknown program"), c.Pid)
	if c.Uid >= 0 {
		fmt.Fprintf(&b, ", uid %d", c.Uid)
	}
	fmt.Fprintf(&b, "): %s", c.SignalName)
	if c.SigCode != "" {
		fmt.Fprintf(&b, " (%s)", c.SigCode)
	}
	if c.HasFaultAddr {
		fmt.Fprintf(&b, " at address %#x", c.FaultAddr)
	}
	plural := "s"
	if c.Threads == 1 {
		plural = ""
	}
	fmt.Fprintf(&b, ", %s, %d thread%s", c.Arch, c.Threads, plural)
	if c.Args != "" {
		fmt.Fprintf(&b, "\ncommand line: %s", c.Args)
	}
	if c.Truncated {
		fmt.Fprintf(&b, "\nwarning: core is truncated (%d bytes missing): RLIMIT_CORE or disk space cut it short; backtraces may be incomplete", c.MissingBytes)
	}
	return b.String()
}
