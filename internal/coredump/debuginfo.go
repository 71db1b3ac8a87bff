package coredump

import (
	"bytes"
	"debug/elf"
	"encoding/hex"
	"path/filepath"
	"strings"

	"github.com/triage-dev/triage/internal/crashsite"
)

// DebugFileDir is where gdb looks for separate debug files by default
// (its debug-file-directory): .build-id/NN/REST.debug and the
// executable's own directory mirrored below it.
var DebugFileDir = "/usr/lib/debug"

// DebugInfo says whether an ELF object carries DWARF line information a
// debugger finds: in the file itself, or in a separate debug file found by
// build-id or .gnu_debuglink the way gdb finds it.
type DebugInfo struct {
	// Has: the object or its separate debug file has .debug_info and
	// .debug_line (compressed .zdebug_ sections count).
	Has bool
	// In is the file the DWARF is in when Has (the object itself or its
	// separate debug file).
	In string
	// Stripped: the object has no symbol table either (strip was run), so
	// its frames are bare addresses, not just without file:line.
	Stripped bool
}

// ReadDebugInfo reads an ELF object's sections, and those of a separate
// debug file when the object points at one.
func ReadDebugInfo(path string) (DebugInfo, error) {
	f, err := elf.Open(path)
	if err != nil {
		return DebugInfo{}, err
	}
	defer f.Close()
	d := DebugInfo{Stripped: !hasSection(f, ".symtab")}
	if hasDWARF(f) {
		d.Has, d.In = true, path
		return d, nil
	}
	for _, cand := range separateDebugFiles(f, path) {
		sf, err := elf.Open(cand)
		if err != nil {
			continue
		}
		ok := hasDWARF(sf)
		sf.Close()
		if ok {
			d.Has, d.In = true, cand
			return d, nil
		}
	}
	return d, nil
}

// hasDWARF: sections with content (not the SHT_NOBITS placeholders a
// stripped debug file's counterpart keeps) for both the compile units and
// the line table.
func hasDWARF(f *elf.File) bool {
	return (hasSection(f, ".debug_info") || hasSection(f, ".zdebug_info")) &&
		(hasSection(f, ".debug_line") || hasSection(f, ".zdebug_line"))
}

func hasSection(f *elf.File, name string) bool {
	s := f.Section(name)
	return s != nil && s.Type != elf.SHT_NOBITS && s.Size > 0
}

// separateDebugFiles lists where gdb would look for the object's debug
// file: by build-id under DebugFileDir, then by .gnu_debuglink next to the
// object, in its .debug/ directory, and mirrored under DebugFileDir.
func separateDebugFiles(f *elf.File, path string) []string {
	var out []string
	if id := buildID(f); len(id) > 1 {
		h := hex.EncodeToString(id)
		out = append(out, filepath.Join(DebugFileDir, ".build-id", h[:2], h[2:]+".debug"))
	}
	if s := f.Section(".gnu_debuglink"); s != nil {
		if data, err := s.Data(); err == nil {
			name, _, _ := bytes.Cut(data, []byte{0})
			if n := string(name); n != "" && !strings.ContainsRune(n, '/') {
				dir := filepath.Dir(path)
				if abs, err := filepath.Abs(dir); err == nil {
					dir = abs
				}
				out = append(out, filepath.Join(dir, n), filepath.Join(dir, ".debug", n), filepath.Join(DebugFileDir, dir, n))
			}
		}
	}
	return out
}

// buildID is the object's NT_GNU_BUILD_ID, nil when it has none.
func buildID(f *elf.File) []byte {
	s := f.Section(".note.gnu.build-id")
	if s == nil {
		return nil
	}
	data, err := s.Data()
	if err != nil || len(data) < 12 {
		return nil
	}
	order := f.ByteOrder
	namesz, descsz, typ := order.Uint32(data[0:]), order.Uint32(data[4:]), order.Uint32(data[8:])
	const ntGNUBuildID = 3
	off := 12 + (namesz+3)&^3
	if typ != ntGNUBuildID || uint64(off)+uint64(descsz) > uint64(len(data)) {
		return nil
	}
	return data[off : off+descsz]
}

// NoDebugInfo names the object file that keeps a crash from having a
// file:line: the object of the innermost frame in the program's own code
// (not the C library's or a runtime's) has no DWARF a debugger finds.
type NoDebugInfo struct {
	// File is the executable or shared library without debug info.
	File string `json:"file"`
	// Function is the frame's function, when its symbol is known.
	Function string `json:"function,omitempty"`
	// Stripped: the file has no symbol table either.
	Stripped bool `json:"stripped,omitempty"`
}

// String says which file lacks what, for a verdict's detail line.
func (n *NoDebugInfo) String() string { return n.File + " has " + n.Reason() }

// Reason says what is missing and what it costs, without the file.
func (n *NoDebugInfo) Reason() string {
	how := "built without -g"
	if n.Stripped {
		how = "stripped"
	}
	return "no debug info (no DWARF in it or in a separate debug file: " + how + "), so its frames have no file:line"
}

// MissingDebugInfo reports the object without debug info that the crash
// frame is in, or nil when the frame has a file:line, or when it cannot
// tell (no frame outside the runtime, an object it cannot read). ci maps
// the frame's address to the object; exe is the executable, the object of
// frames that name none.
func (t *Trace) MissingDebugInfo(ci *CoreInfo, exe, projectDir string) *NoDebugInfo {
	if t == nil {
		return nil
	}
	for _, f := range t.Frames {
		if crashsite.OriginOf(f.Site(), projectDir) == crashsite.Runtime {
			continue
		}
		if f.File != "" && f.Line > 0 {
			return nil
		}
		obj := objectOf(f, ci, exe)
		if obj == "" {
			return nil
		}
		d, err := ReadDebugInfo(obj)
		if err != nil || d.Has {
			return nil
		}
		return &NoDebugInfo{File: obj, Function: f.Function, Stripped: d.Stripped}
	}
	return nil
}

// objectOf is the file a frame's code is in: the core's mapping of its
// address, else the module the debugger named (gdb's "from /lib/…",
// lldb's "libfoo.so`", found among the mappings by name), else exe.
func objectOf(f Frame, ci *CoreInfo, exe string) string {
	if ci != nil && f.Address != 0 {
		for _, m := range ci.Mappings {
			if f.Address >= m.Start && f.Address < m.End && filepath.IsAbs(m.Path) {
				return m.Path
			}
		}
	}
	switch {
	case f.Module == "":
		return exe
	case filepath.IsAbs(f.Module):
		return f.Module
	case ci != nil:
		for _, m := range ci.Mappings {
			if filepath.Base(m.Path) == f.Module {
				return m.Path
			}
		}
	}
	return ""
}
