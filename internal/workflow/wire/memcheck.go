package wire

import (
	"strings"

	"github.com/triage-dev/triage/internal/capture"
	"github.com/triage-dev/triage/internal/memcheck"
)

// MemoryError is the rerun under valgrind memcheck of a crash that looked
// like memory corruption: its first memory error where it happened and
// the heap block it touched, or that none was seen, or why there is no
// verdict.
type MemoryError struct {
	Outcome    string       `json:"outcome" jsonschema:"found, clean (no memory error seen), incomplete or not_run (reason says why)"`
	Summary    string       `json:"summary" jsonschema:"the answer's memcheck line"`
	Why        string       `json:"why" jsonschema:"why the crash looked like memory corruption"`
	Kind       string       `json:"kind,omitempty" jsonschema:"in plain words: heap buffer overflow, use after free, invalid free (double free), ..."`
	Valgrind   string       `json:"valgrind_kind,omitempty" jsonschema:"valgrind's own: InvalidRead, InvalidWrite, InvalidFree, ..."`
	Access     string       `json:"access,omitempty" jsonschema:"read or write"`
	Size       int          `json:"size,omitempty" jsonschema:"bytes accessed"`
	Site       *MemorySite  `json:"site,omitempty" jsonschema:"where the bad access happened: the project's frame"`
	Block      *MemoryBlock `json:"block,omitempty" jsonschema:"the heap block the address falls in or near"`
	Allocated  *MemorySite  `json:"allocated,omitempty" jsonschema:"where that block was allocated"`
	Freed      *MemorySite  `json:"freed,omitempty" jsonschema:"where it was freed"`
	Errors     int          `json:"errors,omitempty" jsonschema:"memory errors valgrind reported"`
	Reason     string       `json:"reason,omitempty" jsonschema:"why there is no verdict (incomplete, not_run)"`
	OutputID   string       `json:"output_id,omitempty" jsonschema:"valgrind's whole XML in the output store"`
	LimitMS    int64        `json:"limit_ms,omitempty" jsonschema:"the rerun's time limit"`
	DurationMS int64        `json:"duration_ms,omitempty" jsonschema:"the rerun's wall time"`
}

// MemorySite is a frame of a memory error's stacks.
type MemorySite struct {
	Function string `json:"function,omitempty"`
	File     string `json:"file,omitempty" jsonschema:"with its directory when valgrind knows it"`
	Line     int    `json:"line,omitempty" jsonschema:"1-based"`
	Object   string `json:"object,omitempty" jsonschema:"the executable or library"`
}

// MemoryBlock is the heap block an address falls in or near.
type MemoryBlock struct {
	Size     int64  `json:"size" jsonschema:"bytes"`
	Offset   int64  `json:"offset" jsonschema:"bytes from it (see relation)"`
	Relation string `json:"relation" jsonschema:"after its end, before its start, or inside"`
	Freed    bool   `json:"freed,omitempty"`
}

// MemoryErrorOf converts a crash's rerun under memcheck, nil for nil.
func MemoryErrorOf(m *capture.MemcheckRun) *MemoryError {
	if m == nil {
		return nil
	}
	out := &MemoryError{Outcome: "not_run", Summary: m.Summary(), Why: m.Why, Reason: m.NotRun, OutputID: m.OutputID,
		LimitMS: m.Limit.Milliseconds(), DurationMS: m.Took.Milliseconds()}
	r := m.Result
	if r == nil {
		return out
	}
	out.Outcome, out.Reason, out.Errors = r.Outcome.String(), r.Reason, r.Seen
	if e := r.First(); e != nil {
		reportInto(out, e)
	}
	return out
}

func reportInto(out *MemoryError, e *memcheck.Report) {
	out.Kind, _, _ = strings.Cut(e.Words, ": ")
	out.Valgrind = e.Kind
	if a := e.Access; a != nil {
		out.Access, out.Size = a.Op, a.Size
	}
	out.Site = memorySiteOf(e.Site())
	if b := e.Block; b != nil {
		out.Block = &MemoryBlock{Size: b.Size, Offset: b.Offset, Relation: b.Relation, Freed: b.Freed}
	}
	out.Allocated = auxSite(e.AuxOf(memcheck.Allocated))
	out.Freed = auxSite(e.AuxOf(memcheck.Freed))
}

func auxSite(s *memcheck.Stack) *MemorySite {
	if s == nil || s.At < 0 || s.At >= len(s.Frames) {
		return nil
	}
	return memorySiteOf(&s.Frames[s.At])
}

func memorySiteOf(f *memcheck.Frame) *MemorySite {
	if f == nil {
		return nil
	}
	return &MemorySite{Function: f.Function, File: f.Path(), Line: f.Line, Object: f.Object}
}
