package coredump

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// ThreadTrace is one thread's backtrace from `thread apply all bt` (gdb) or
// `bt all` (lldb), as taken of a live process or a core.
type ThreadTrace struct {
	ID     int     `json:"id"`             // the debugger's thread number (1 is the main thread)
	LWP    int     `json:"lwp,omitempty"`  // the kernel's thread id, when printed
	Name   string  `json:"name,omitempty"` // the thread's name (comm), when printed
	Frames []Frame `json:"frames"`
}

var (
	// Thread 3 (Thread 0x7f1e36f4b6c0 (LWP 18460) "abba"):
	gdbThreadRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^Thread (\d+) \((.*)\):\s*$`) })
	gdbLWPRE    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\(LWP (\d+)\)`) })
	gdbNameRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`"([^"]*)"\s*$`) })
	//   thread #2, name = 'abba', stop reason = signal SIGSTOP
	lldbThreadHeadRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*\*?\s*thread #(\d+)(.*)$`) })
	lldbTIDRE        = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`tid = (0x[0-9a-fA-F]+|\d+)`) })
	lldbTNameRE      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`name = '([^']*)'`) })
)

// ParseGDBThreads reads gdb's output for `thread apply all bt`: one
// ThreadTrace per "Thread N (...):" header, in the order printed. Frames
// before the first header (gdb echoes the current frame on attach) are not
// a thread's and are dropped.
func ParseGDBThreads(out string) []ThreadTrace {
	var threads []ThreadTrace
	var cur *ThreadTrace
	for ln := range strings.SplitSeq(out, "\n") {
		ln = strings.TrimRight(ln, "\r")
		if m := gdbThreadRE().FindStringSubmatch(ln); m != nil {
			id, _ := strconv.Atoi(m[1])
			t := ThreadTrace{ID: id}
			if l := gdbLWPRE().FindStringSubmatch(m[2]); l != nil {
				t.LWP, _ = strconv.Atoi(l[1])
			}
			if n := gdbNameRE().FindStringSubmatch(m[2]); n != nil {
				t.Name = n[1]
			}
			threads = append(threads, t)
			cur = &threads[len(threads)-1]
			continue
		}
		if cur == nil {
			continue
		}
		if m := gdbFrameRE().FindStringSubmatch(ln); m != nil {
			idx, _ := strconv.Atoi(m[1])
			cur.Frames = append(cur.Frames, parseGDBFrame(idx, m[2]))
		}
	}
	return threads
}

// ParseLLDBThreads reads lldb's output for `bt all`.
func ParseLLDBThreads(out string) []ThreadTrace {
	var threads []ThreadTrace
	var cur *ThreadTrace
	for ln := range strings.SplitSeq(out, "\n") {
		ln = strings.TrimRight(ln, "\r")
		if f, ok := ParseLLDBFrameLine(ln); ok {
			if cur != nil {
				cur.Frames = append(cur.Frames, f)
			}
			continue
		}
		if m := lldbThreadHeadRE().FindStringSubmatch(ln); m != nil {
			id, _ := strconv.Atoi(m[1])
			t := ThreadTrace{ID: id}
			if n := lldbTNameRE().FindStringSubmatch(m[2]); n != nil {
				t.Name = n[1]
			}
			if l := lldbTIDRE().FindStringSubmatch(m[2]); l != nil {
				v, _ := strconv.ParseInt(l[1], 0, 64)
				t.LWP = int(v)
			}
			threads = append(threads, t)
			cur = &threads[len(threads)-1]
		}
	}
	return threads
}
