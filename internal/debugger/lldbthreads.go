package debugger

import (
	"regexp"
	"strconv"
	"strings"
)

var (
	lldbThreadLineRE = regexp.MustCompile(`(?m)^[* ] thread #(\d+)(.*)$`)
	lldbThreadTidRE  = regexp.MustCompile(`tid = (\w+)`)
	lldbThreadNameRE = regexp.MustCompile(`name = '([^']*)'`)
)

// ParseLLDBThreads reads lldb's `thread list` ("* thread #1: tid = 4242,
// 0x… prog`main at x.c:5, name = 'prog', stop reason = breakpoint 1.1"):
// each thread by its #N, or by its tid when byTid (an lldb DAP adapter's
// thread ids are tids), named by the other and its name.
func ParseLLDBThreads(out string, byTid bool) []Thread {
	var threads []Thread
	for _, m := range lldbThreadLineRE.FindAllStringSubmatch(out, -1) {
		n, _ := strconv.Atoi(m[1])
		tid := int64(0)
		if t := lldbThreadTidRE.FindStringSubmatch(m[2]); t != nil {
			tid, _ = strconv.ParseInt(t[1], 0, 64) // decimal on Linux, 0x… on macOS
		}
		var name []string
		th := Thread{ID: n}
		if byTid {
			th.ID = int(tid)
			name = append(name, "#"+m[1])
		} else if tid != 0 {
			name = append(name, "tid "+strconv.FormatInt(tid, 10))
		}
		if nm := lldbThreadNameRE.FindStringSubmatch(m[2]); nm != nil {
			name = append(name, nm[1])
		}
		th.Name = strings.Join(name, " ")
		threads = append(threads, th)
	}
	return threads
}
