package memcheck

import (
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/triage-dev/triage/internal/crashsite"
)

// Frame is one frame of a stack as valgrind gives it: every field but IP
// may be empty.
type Frame struct {
	IP       string `json:"ip,omitempty"`
	Object   string `json:"object,omitempty"`   // the ELF object the code is in
	Function string `json:"function,omitempty"` // "grow", "operator new(unsigned long)"
	Dir      string `json:"dir,omitempty"`      // the source file's directory, when valgrind knows it
	File     string `json:"file,omitempty"`     // the source file's name, often without its directory
	Line     int    `json:"line,omitempty"`
}

// Path is the frame's source file with its directory when valgrind gave
// one ("/src/list.c"), else the file as given.
func (f Frame) Path() string {
	if f.Dir != "" && f.File != "" && !path.IsAbs(f.File) {
		return path.Join(f.Dir, f.File)
	}
	return f.File
}

// Site is "list.c:12", or the object's base name when the frame has no
// source ("libc.so.6"), or "" when it has neither.
func (f Frame) Site() string {
	switch {
	case f.File != "" && f.Line > 0:
		return path.Base(f.File) + ":" + strconv.Itoa(f.Line)
	case f.File != "":
		return path.Base(f.File)
	case f.Object != "":
		return path.Base(f.Object)
	}
	return ""
}

// Role says what an auxiliary stack shows.
type Role string

const (
	Allocated Role = "allocated" // where the block the address falls in was allocated
	Freed     Role = "freed"     // where that block was freed
	Origin    Role = "origin"    // where an uninitialised value was created
	Other     Role = "other"
)

// Stack is an auxiliary stack of an error with valgrind's words for it
// ("Address 0x4a43140 is 0 bytes after a block of size 256 alloc'd",
// "Block was alloc'd at").
type Stack struct {
	What   string  `json:"what"`
	Role   Role    `json:"role"`
	Frames []Frame `json:"frames"`
	// At indexes the frame to name (Pick); -1 when there are no frames.
	At int `json:"at"`
	// Dropped counts the frames cut by MaxFrames.
	Dropped int `json:"dropped,omitempty"`
}

// Block is the heap block an address falls in or near, read from
// valgrind's "Address 0x… is N bytes after a block of size S alloc'd".
type Block struct {
	Address  string `json:"address"`
	Offset   int64  `json:"offset"`   // bytes from the block: past its end, before its start, or into it
	Relation string `json:"relation"` // "after", "before", "inside"
	Size     int64  `json:"size"`
	Freed    bool   `json:"freed,omitempty"` // the block had been freed (free'd, not alloc'd)
}

// Leak is how much a leak error lost.
type Leak struct {
	Bytes  int64 `json:"bytes"`
	Blocks int64 `json:"blocks"`
}

// Access is the memory access of an invalid read or write.
type Access struct {
	Op   string `json:"op"`   // "read", "write"
	Size int    `json:"size"` // bytes
}

// Report is one memory error.
type Report struct {
	Kind   string  `json:"kind"`  // valgrind's <kind>: InvalidRead, UninitCondition, Leak_DefinitelyLost…
	What   string  `json:"what"`  // valgrind's own words: "Invalid read of size 8"
	Words  string  `json:"words"` // in plain words: "heap buffer overflow: invalid read of size 8"
	Access *Access `json:"access,omitempty"`
	Stack  []Frame `json:"stack"` // where it happened, innermost first
	// At indexes the frame of Stack to name (Pick); -1 when Stack is empty.
	At      int     `json:"at"`
	Dropped int     `json:"dropped,omitempty"` // frames of Stack cut by MaxFrames
	Aux     []Stack `json:"aux,omitempty"`
	// Notes are auxiliary words without a stack ("Address 0x0 is not
	// stack'd, malloc'd or (recently) free'd").
	Notes  []string `json:"notes,omitempty"`
	Block  *Block   `json:"block,omitempty"`
	Leak   *Leak    `json:"leak,omitempty"`
	Thread int      `json:"thread,omitempty"` // valgrind's thread number
	Count  int      `json:"count,omitempty"`  // how often valgrind saw it, from its error counts
	// Tool is the valgrind tool that reported it when not memcheck
	// ("helgrind": helgrind.go).
	Tool   string `json:"tool,omitempty"`
	unique string // valgrind's <unique>, which its error counts name
}

// Site is the frame the report names, or nil.
func (r *Report) Site() *Frame {
	if r.At < 0 || r.At >= len(r.Stack) {
		return nil
	}
	return &r.Stack[r.At]
}

// AuxOf returns the first auxiliary stack of the role, or nil.
func (r *Report) AuxOf(role Role) *Stack {
	for i := range r.Aux {
		if r.Aux[i].Role == role {
			return &r.Aux[i]
		}
	}
	return nil
}

// Pick is the frame to name in frames: crashsite's rule (the first frame in
// the project's own code, else a dependency's, …) over the frames that are
// not valgrind's own (its preloaded malloc and string functions) nor a
// system library's without sources. -1 when no frame is left.
func Pick(frames []Frame, projectDir string) int {
	var cand []crashsite.Frame
	var index []int
	for i, f := range frames {
		if valgrinds(f) || (f.File == "" && systemObject(f.Object)) {
			continue
		}
		cand = append(cand, crashsite.Frame{Function: f.Function, File: f.Path(), Line: f.Line, Module: f.Object})
		index = append(index, i)
	}
	if i := crashsite.Pick(cand, projectDir); i >= 0 {
		return index[i]
	}
	if len(frames) > 0 {
		return 0
	}
	return -1
}

// valgrinds reports a frame in valgrind's own preloaded objects
// (vgpreload_memcheck-amd64-linux.so) or its tool.
func valgrinds(f Frame) bool {
	base := path.Base(f.Object)
	return strings.HasPrefix(base, "vgpreload_") || strings.Contains(f.Object, "/valgrind/")
}

func systemObject(obj string) bool {
	return strings.HasPrefix(obj, "/usr/") || strings.HasPrefix(obj, "/lib/") || strings.HasPrefix(obj, "/lib64/")
}

// blockWords reads "Address 0x4a43140 is 0 bytes after a block of size 256
// alloc'd" (also "a recently re-allocated block", and "free'd"); valgrind
// groups the digits of 1000 and more: "a block of size 2,000".
var blockWords = regexp.MustCompile(`^Address (0x[0-9A-Fa-f]+) is ([\d,]+) bytes? (after|before|inside) a (?:recently re-allocated )?block of size ([\d,]+) (alloc'd|free'd)`)

func parseBlock(aux string) *Block {
	m := blockWords.FindStringSubmatch(aux)
	if m == nil {
		return nil
	}
	off, err1 := strconv.ParseInt(strings.ReplaceAll(m[2], ",", ""), 10, 64)
	size, err2 := strconv.ParseInt(strings.ReplaceAll(m[4], ",", ""), 10, 64)
	if err1 != nil || err2 != nil {
		return nil
	}
	return &Block{Address: m[1], Offset: off, Relation: m[3], Size: size, Freed: m[5] == "free'd"}
}

// roleOf says what the stack valgrind describes in these words shows.
func roleOf(what string) Role {
	switch {
	case strings.HasSuffix(what, "free'd"):
		return Freed
	case strings.HasSuffix(what, "alloc'd"), strings.HasPrefix(what, "Block was alloc'd"):
		return Allocated
	case strings.HasPrefix(what, "Uninitialised value was created"):
		return Origin
	}
	return Other
}

// accessWords reads "Invalid read of size 8" and "Invalid write of size 4".
var accessWords = regexp.MustCompile(`^Invalid (read|write) of size (\d+)`)

func parseAccess(what string) *Access {
	m := accessWords.FindStringSubmatch(what)
	if m == nil {
		return nil
	}
	n, _ := strconv.Atoi(m[2])
	return &Access{Op: m[1], Size: n}
}

// leakWords names the leak kinds.
var leakWords = map[string]string{
	"Leak_DefinitelyLost": "definitely lost",
	"Leak_IndirectlyLost": "indirectly lost",
	"Leak_PossiblyLost":   "possibly lost",
	"Leak_StillReachable": "still reachable",
}

// words says the error in plain words, from its kind, access and block.
func words(r *Report) string {
	if w, ok := threadWords(r); ok && !isMemcheck(r.Tool) {
		return w
	}
	switch r.Kind {
	case "InvalidRead", "InvalidWrite":
		return accessPlain(r)
	case "InvalidFree":
		if r.Block != nil && r.Block.Freed {
			return "invalid free (double free)"
		}
		return "invalid free (not the start of a heap block)"
	case "MismatchedFree":
		return "mismatched free (released by another family than allocated it: malloc/free, new/delete, new[]/delete[])"
	case "UninitCondition":
		return "uninitialised value decides a branch"
	case "UninitValue":
		return "uninitialised value used (" + lowerFirst(r.What) + ")"
	case "InvalidJump":
		return "jump to an invalid address (a bad function pointer or a smashed return address)"
	case "SyscallParam":
		return "bad system call argument: " + strings.TrimPrefix(r.What, "Syscall param ")
	case "Overlap":
		return "overlapping copy: " + lowerFirst(r.What)
	}
	if lw, ok := leakWords[r.Kind]; ok {
		if r.Leak != nil {
			return fmt.Sprintf("%s: %s in %s", lw, count(r.Leak.Bytes, "byte"), count(r.Leak.Blocks, "block"))
		}
		return lw
	}
	return lowerFirst(r.What)
}

func accessPlain(r *Report) string {
	op := lowerFirst(r.What)
	if r.Access != nil {
		op = fmt.Sprintf("invalid %s of size %d", r.Access.Op, r.Access.Size)
	}
	switch b := r.Block; {
	case b != nil && b.Freed:
		return "use after free: " + op
	case b != nil && b.Relation != "inside":
		return "heap buffer overflow: " + op
	}
	return op
}

func count(n int64, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return strconv.FormatInt(n, 10) + " " + unit + "s"
}

func lowerFirst(s string) string {
	if s == "" || s[0] < 'A' || s[0] > 'Z' {
		return s
	}
	return string(s[0]+'a'-'A') + s[1:]
}
