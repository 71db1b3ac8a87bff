package debugger

import (
	"regexp"
	"strconv"
	"strings"
)

var (
	lldbThreadLineRE   = regexp.MustCompile(`(?m)^[* ] thread #(\d+)(.*)$`)
	lldbThreadTidRE    = regexp.MustCompile(`tid = (\w+)`)
	lldbThreadNameRE   = regexp.MustCompile(`name = '([^']*)'`)
	lldbThreadReasonRE = regexp.MustCompile(`stop reason = (.*)$`)
)

// ParseLLDBThreads reads lldb's `thread list` ("* thread #1: tid = 4242,
// 0x… prog`main at x.c:5, name = 'prog', stop reason = breakpoint 1.1"):
// each thread by its #N, or by its tid when byTid (an lldb DAP adapter's
// thread ids are tids), with its #N, tid, name and stop reason.
func ParseLLDBThreads(out string, byTid bool) []Thread {
	var threads []Thread
	for _, m := range lldbThreadLineRE.FindAllStringSubmatch(out, -1) {
		n, _ := strconv.Atoi(m[1])
		th := Thread{ID: n, Num: n}
		if t := lldbThreadTidRE.FindStringSubmatch(m[2]); t != nil {
			th.Tid, _ = strconv.ParseInt(t[1], 0, 64) // decimal on Linux, 0x… on macOS
		}
		if byTid {
			th.ID = int(th.Tid)
		}
		if nm := lldbThreadNameRE.FindStringSubmatch(m[2]); nm != nil {
			th.Name = nm[1]
		}
		if r := lldbThreadReasonRE.FindStringSubmatch(m[2]); r != nil {
			th.Reason = strings.TrimSpace(r[1])
		}
		threads = append(threads, th)
	}
	return threads
}
