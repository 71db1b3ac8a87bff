package analysis

import (
	"fmt"
	"strings"
)

// text renders the report as it is stored: the verdict line, then the
// fields that are set.
func (o Report) text() string {
	var b strings.Builder
	b.WriteString(o.Verdict + "\n")
	field := func(name, v string) {
		if v != "" {
			fmt.Fprintf(&b, "%s: %s\n", name, v)
		}
	}
	list := func(title string, lines []string) {
		if len(lines) == 0 {
			return
		}
		fmt.Fprintf(&b, "%s:\n", title)
		for _, l := range lines {
			fmt.Fprintf(&b, "  %s\n", l)
		}
	}
	if o.Kernel {
		field("release", o.Release)
		field("uptime", o.Uptime)
		field("panic", o.Panic)
		if t := o.Task; t != nil {
			fmt.Fprintf(&b, "panicking task: %s, pid %d, task %s, CPU %d\n", t.Command, t.PID, t.Task, t.CPU)
		}
		field("tainted", o.Tainted)
		if o.CPUs != "" || o.LoadAverage != "" {
			fmt.Fprintf(&b, "cpus: %s; load average: %s\n", o.CPUs, o.LoadAverage)
		}
		list("backtrace", o.Backtrace)
		list("kernel log (last lines)", o.LogTail)
	} else {
		field("signal", o.Signal)
		field("fault address", o.FaultAddress)
		list("backtrace (crashed thread)", o.Backtrace)
		if o.Site != nil {
			o.Site.WriteText(&b)
		}
		list("registers", o.Registers)
		list("libraries without symbols", o.MissingSymbols)
	}
	list("problems", o.Problems)
	return b.String()
}
