package debugger

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/textclip"
)

// The text a call's answer shows of the domain's values. Every writer is
// bounded by a budget of bytes (the builder's length); what it cuts is in
// the structured answer.

// maxHitText bounds one hit's line in an answer; the stored log has it whole.
const maxHitText = 200

// NewBreakpointSpec is the breakpoint at location (ParseLocation) with
// its condition, hit count (stop from that hit on) and log message,
// checked.
func NewBreakpointSpec(location, condition string, hitCount int, logMessage string) (BreakpointSpec, error) {
	spec, err := ParseLocation(location)
	if err != nil {
		return spec, err
	}
	spec.Condition, spec.LogMessage = condition, logMessage
	if hitCount > 0 {
		spec.HitCondition = fmt.Sprint(hitCount)
	}
	if err := spec.Validate(); err != nil {
		return spec, fault.Usage(err)
	}
	return spec, nil
}

// Describe words a breakpoint just set: where, as resolved, or why it is
// pending (host is a remote session's, "" here); an emulated watch says so
// (it is slow).
func (bp Breakpoint) Describe(spec BreakpointSpec, host string) string {
	text := fmt.Sprintf("BREAKPOINT %d at %s", bp.ID, spec)
	switch {
	case bp.Verified && bp.File != "":
		text += fmt.Sprintf(" (resolved to %s:%d)", bp.File, bp.Line)
	case !bp.Verified:
		text += " — unverified: " + unverifiedReason(spec, bp.Message, host)
	}
	return text
}

// unverifiedReason says why a breakpoint is pending in the caller's terms:
// the debugger's own words, and the file missing on disk when it is (on
// this side only: a remote session's files are its host's).
func unverifiedReason(spec BreakpointSpec, msg, host string) string {
	msg = strings.TrimSpace(strings.TrimPrefix(msg, "unverified:"))
	if msg == "" {
		msg = "the debugger found no code there"
	}
	switch {
	case spec.File != "" && filepath.IsAbs(spec.File) && host == "":
		if _, err := os.Stat(spec.File); err != nil {
			msg = fmt.Sprintf("no such file %s; %s", spec.File, msg)
		}
	case spec.File != "":
		msg += fmt.Sprintf(" (no source named %s in the loaded code, or in a library not loaded yet)", filepath.Base(spec.File))
	default:
		msg += fmt.Sprintf(" (no function %s in the loaded code, or in a library not loaded yet)", spec.Function)
	}
	return msg + "; it stays pending and binds if such code loads"
}

// WriteVariables writes vars and their children, indented a level each.
func WriteVariables(sb *strings.Builder, vars []Variable, indent string, budget int) {
	for i, v := range vars {
		if sb.Len() > budget {
			fmt.Fprintf(sb, "%s… %d more in the structured output\n", indent, len(vars)-i)
			return
		}
		fmt.Fprintf(sb, "%s%s", indent, v.Name)
		if v.Type != "" {
			fmt.Fprintf(sb, " (%s)", v.Type)
		}
		fmt.Fprintf(sb, " = %s", v.Value)
		if v.Cut != "" {
			fmt.Fprintf(sb, "  [%s]", v.Cut)
		}
		sb.WriteByte('\n')
		WriteVariables(sb, v.Children, indent+"  ", budget)
	}
}

// DepthCut reports whether the depth limit left children unfetched.
func DepthCut(vars []Variable) bool {
	for _, v := range vars {
		if strings.Contains(v.Cut, "depth") || DepthCut(v.Children) {
			return true
		}
	}
	return false
}

// WriteText writes how many logpoint hits there were, where the event log
// is (logRef, on the same line), that it is full, if it is, and the newest
// hits, one line each.
func (n LogNews) WriteText(sb *strings.Builder, logRef string) {
	plural := "s"
	if n.New == 1 {
		plural = ""
	}
	fmt.Fprintf(sb, "%d logpoint hit%s since the last call%s\n", n.New, plural, logRef)
	if n.Full {
		fmt.Fprintf(sb, "  the event log is full (%d bytes): later hits are not recorded\n", LogBookMaxBytes)
	}
	for _, hit := range n.Last {
		fmt.Fprintf(sb, "  %s %s\n", hit.At.Format("15:04:05.000"), textclip.String(hit.String(), maxHitText))
	}
}

// UnreadableNote says which bytes after the read could not be read; "" when
// none.
func (m Memory) UnreadableNote() string {
	if m.Unreadable == 0 {
		return ""
	}
	return fmt.Sprintf("%d bytes after %#x are unreadable", m.Unreadable, m.Address+uint64(len(m.Bytes)))
}

// WriteText writes the memory read at address (as asked) as a hex dump.
func (m Memory) WriteText(sb *strings.Builder, address string, budget int) {
	fmt.Fprintf(sb, "MEMORY at %s = %#x, %d bytes\n", address, m.Address, len(m.Bytes))
	for off := 0; off < len(m.Bytes); off += 16 {
		if sb.Len() > budget {
			fmt.Fprintf(sb, "… %d more bytes in the structured output (hex)\n", len(m.Bytes)-off)
			break
		}
		sb.WriteString(hexRow(m.Address+uint64(off), m.Bytes[off:min(off+16, len(m.Bytes))]))
	}
	if note := m.UnreadableNote(); note != "" {
		sb.WriteString(note + "\n")
	}
}

// hexRow is one row of up to 16 bytes: the address, the bytes in hex, and
// them as ASCII (a dot for what does not print).
func hexRow(addr uint64, row []byte) string {
	var hx, asc strings.Builder
	for i := range 16 {
		if i >= len(row) {
			hx.WriteString("   ")
			continue
		}
		fmt.Fprintf(&hx, "%02x ", row[i])
		if c := row[i]; c >= 0x20 && c < 0x7f {
			asc.WriteByte(c)
		} else {
			asc.WriteByte('.')
		}
	}
	return fmt.Sprintf("%#016x: %s %s\n", addr, hx.String(), asc.String())
}

// WriteText writes the registers of frame, their roles marked.
func (r Registers) WriteText(sb *strings.Builder, frame int) {
	fmt.Fprintf(sb, "REGISTERS of %s (%d, general-purpose)\n", frameName(frame), len(r.Registers))
	for _, reg := range r.Registers {
		role := ""
		if reg.Role != "" {
			role = "  [" + reg.Role + "]"
		}
		fmt.Fprintf(sb, "  %6s = %s%s\n", reg.Name, reg.Value, role)
	}
}

func frameName(frame int) string {
	if frame <= 0 {
		return "the top frame"
	}
	return fmt.Sprintf("frame id %d", frame)
}

// WriteText writes the disassembly req asked for.
func (d Disassembly) WriteText(sb *strings.Builder, req DisassembleRequest, budget int) {
	what := "around the pc of " + frameName(req.Frame)
	if req.Function != "" {
		what = "of " + req.Function
	}
	fmt.Fprintf(sb, "DISASSEMBLY %s (%d instructions", what, len(d.Instructions))
	if d.Cut != "" {
		fmt.Fprintf(sb, "; %s, count gives more", d.Cut)
	}
	sb.WriteString(")\n")
	writeInstructions(sb, d.Instructions, budget)
}

// writeInstructions writes the instructions, "=>" at the pc, each after the
// source rows the debugger gave (or, from a DAP adapter, its file:line
// where the line changes).
func writeInstructions(sb *strings.Builder, ins []Instruction, budget int) {
	file, line := "", 0
	for n, i := range ins {
		if sb.Len() > budget {
			fmt.Fprintf(sb, "  … %d more in the structured output\n", len(ins)-n)
			return
		}
		for _, s := range i.Source {
			n, text, _ := strings.Cut(s, "\t")
			fmt.Fprintf(sb, "  %5s | %s\n", n, strings.TrimRight(text, " \t"))
		}
		if len(i.Source) == 0 && i.File != "" && i.Line != 0 && (i.Line != line || i.File != file) {
			fmt.Fprintf(sb, "  ; %s:%d\n", filepath.Base(i.File), i.Line)
		}
		file, line = i.File, i.Line
		mark := "  "
		if i.Current {
			mark = "=>"
		}
		fmt.Fprintf(sb, "  %s %s <%s>: %s\n", mark, i.Address, i.Symbol, i.Text)
	}
}
