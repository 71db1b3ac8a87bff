package crashsite

import (
	"fmt"
	"slices"
	"strings"
)

// WriteText writes the site as every crash answer shows it (run, test,
// crash_report_show, dump_report): the source with the faulting line
// marked, the frame's arguments and locals, and a memory fault's address
// beside the pointers at or just below it; then the frames that called
// toward the crash (writeCallers).
//
//	crash site: total at nullderef.c:13 (frame #0)
//	      12 | 	const struct node *n = head->next;
//	  >   13 | 	sum += n->value;
//	  args: head = 0x7ffc…, label = 0x5555… "list"
//	  locals: sum = 1, n = 0x0
//	  fault address 0x0: n = 0x0
//
// A nil site writes nothing.
func (s *Site) WriteText(b *strings.Builder) {
	if s == nil {
		return
	}
	b.WriteString("crash site: ")
	if s.Function != "" {
		b.WriteString(s.Function + " at ")
	}
	fmt.Fprintf(b, "%s:%d", s.File, s.Line)
	if s.Index >= 0 {
		fmt.Fprintf(b, " (frame #%d)", s.Index)
	}
	b.WriteByte('\n')
	writeSource(b, s.Source)
	writeVars(b, "args", s.Args, 0)
	writeVars(b, "locals", s.Locals, s.VarsCut)
	if s.FaultAddr != "" {
		fmt.Fprintf(b, "  fault address %s", s.FaultAddr)
		sep := ": "
		for _, v := range append(slices.Clip(s.Args), s.Locals...) {
			if v.NearFault {
				fmt.Fprintf(b, "%s%s = %s", sep, v.Name, v.Value)
				sep = ", "
			}
		}
		b.WriteByte('\n')
	}
	s.writeCallers(b)
}

// writeCallers writes the frames that called toward the crash, each after
// the sentence that says which of the frame below's arguments it passed:
//
//	  `node` is frame #1's `t->slots[i]`
//	called from: table_grow at table.c:53 (frame #1)
//	      52 | 			unsigned i = (unsigned)e->key & t->size;
//	  >   53 | 			list_insert(t->slots[i], e->key);
//	      54 | 		}
//	  args: t = 0x7ffc…
//	  locals: i = 8, e = 0x5555…, b = 1
func (s *Site) writeCallers(b *strings.Builder) {
	for _, c := range s.Callers {
		if c.Param != "" {
			fmt.Fprintf(b, "  `%s` is frame #%d's `%s`\n", c.Param, c.Index, c.Expr)
		}
		b.WriteString("called from: ")
		if c.Function != "" {
			b.WriteString(c.Function + " at ")
		}
		fmt.Fprintf(b, "%s:%d (frame #%d)\n", c.File, c.Line, c.Index)
		writeSource(b, c.Source)
		writeVars(b, "args", c.Args, 0)
		writeVars(b, "locals", c.Locals, c.VarsCut)
	}
}

// writeSource writes source lines, the frame's own marked.
func writeSource(b *strings.Builder, lines []SourceLine) {
	for _, l := range lines {
		mark := " "
		if l.Current {
			mark = ">"
		}
		// An empty line ends at its bar, not in a trailing space.
		b.WriteString(strings.TrimRight(fmt.Sprintf("  %s %4d | %s", mark, l.Line, l.Text), " "))
		b.WriteByte('\n')
	}
}

func writeVars(b *strings.Builder, label string, vars []Var, cut int) {
	if len(vars) == 0 && cut == 0 {
		return
	}
	fmt.Fprintf(b, "  %s: ", label)
	for i, v := range vars {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(b, "%s = %s", v.Name, v.Value)
	}
	if cut > 0 {
		fmt.Fprintf(b, " (and %d more)", cut)
	}
	b.WriteByte('\n')
}
