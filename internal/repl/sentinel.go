package repl

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// Sentinel is the command written after every user command, and the test that
// recognises its result in the output.
type Sentinel struct {
	// Command is written to the engine, followed by a newline.
	Command string
	// Done returns the byte offset in text (ANSI already stripped) where the
	// line carrying the sentinel's result starts, or -1 when it has not
	// appeared yet.
	Done func(text string) int
}

// SentinelFunc builds the sentinel for the n-th command of a session. It must
// give a different result for every n.
type SentinelFunc func(n int64) Sentinel

// SumSentinel returns a SentinelFunc whose command is format applied to two
// numbers (for example "p %d+%d" for gdb, lldb and crash, "%d+%d" for a Python
// REPL such as drgn) and whose result is their sum, matched as a whole word.
// The first number is random per session, so output of the user's own command
// is vanishingly unlikely to contain it, and the command text never contains
// the sum.
func SumSentinel(format string) SentinelFunc {
	base := randomBase()
	return func(n int64) Sentinel {
		a, b := base, n+1
		sum := regexp.MustCompile(`(?:^|[^0-9])` + fmt.Sprint(a+b) + `(?:[^0-9]|$)`)
		return Sentinel{
			Command: fmt.Sprintf(format, a, b),
			Done: func(text string) int {
				loc := sum.FindStringIndex(text)
				if loc == nil {
					return -1
				}
				return strings.LastIndexByte(text[:loc[0]+1], '\n') + 1
			},
		}
	}
}

// randomBase is a 9-digit number: large enough to be unusual in output,
// small enough for every engine's integer arithmetic.
func randomBase() int64 {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	return 300_000_000 + int64(binary.LittleEndian.Uint64(b[:])%600_000_000)
}

var ansiRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]`)
})

// StripANSI removes ANSI escape sequences (CSI, OSC and two-byte escapes) and
// carriage returns that precede a newline.
func StripANSI(s string) string {
	s = ansiRE().ReplaceAllString(s, "")
	return strings.ReplaceAll(s, "\r\n", "\n")
}
