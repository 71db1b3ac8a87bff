package memcheck

import (
	"regexp"
	"strings"
)

// Valgrind's thread checker. Helgrind (--tool=helgrind) writes the same
// XML protocol as memcheck: an error's kind (Race, LockOrder,
// UnlockUnlocked, PthAPIerror, Misc…), its words in an <xwhat> with the
// thread's number, the stack where it happened, and, for a race, an
// <xauxwhat> "This conflicts with a previous write of size 4 by thread #2"
// before the other thread's stack, then where the address is ("Address
// 0x10c02c is 0 bytes inside data symbol "counter"") without a stack.
// Everything else (the run, the bounds, the outcome) is memcheck's.

// ToolHelgrind is Options.Tool for valgrind's thread checker; "" (or
// "memcheck") is memcheck.
const ToolHelgrind = "helgrind"

// toolName is the valgrind tool of Options.Tool: memcheck unless given.
func toolName(tool string) string {
	if tool == "" {
		return "memcheck"
	}
	return tool
}

// isMemcheck reports whether a tool's name is memcheck's.
func isMemcheck(tool string) bool { return tool == "" || tool == "memcheck" }

// knownTool reports whether Parse reads a document of the tool.
func knownTool(tool string) bool { return isMemcheck(tool) || tool == ToolHelgrind || tool == "drd" }

// prefix begins a report's summary with the tool that made it.
func prefix(tool string) string { return toolName(tool) + ": " }

// raceWords reads helgrind's "Possible data race during read of size 4 at
// 0x10C02C by thread #1".
var raceWords = regexp.MustCompile(`^Possible data race during (read|write) of size (\d+) at \S+ by (thread #\d+)`)

// threadWords says a helgrind error in plain words; ok false for a kind
// that is not helgrind's.
func threadWords(r *Report) (string, bool) {
	switch r.Kind {
	case "Race":
		if m := raceWords.FindStringSubmatch(r.What); m != nil {
			return "data race: " + m[1] + " of size " + m[2] + " by " + m[3], true
		}
		return "data race: " + lowerFirst(r.What), true
	case "LockOrder":
		return "lock order violated (a possible deadlock): " + lowerFirst(r.What), true
	case "UnlockUnlocked", "UnlockForeign", "UnlockBogus", "PthAPIerror", "Misc":
		return "thread API misuse: " + lowerFirst(r.What), true
	}
	return "", false
}

// threadContext is what a helgrind error's auxiliary stacks and words
// add: a race's conflicting access and where it was, a lock order's two
// acquisitions that set the order; then where the address is.
func threadContext(r *Report) string {
	var parts []string
	n := 1
	if r.Kind == "LockOrder" {
		n = 2
	}
	for _, s := range r.Aux[:min(n, len(r.Aux))] {
		w := lowerFirst(s.What)
		if site := stackSite(&s); site != "" {
			w += " at " + site
		}
		parts = append(parts, w)
	}
	if len(r.Notes) > 0 {
		parts = append(parts, lowerFirst(r.Notes[0]))
	}
	return strings.Join(parts, "; ")
}
