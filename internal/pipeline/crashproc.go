package pipeline

import (
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/triage-dev/triage/internal/coredump"
	"github.com/triage-dev/triage/internal/testreport"
	"github.com/triage-dev/triage/internal/verdict"
)

// The process a test crash is about, from what the run printed of it: a
// core is the crash's only when it is that process's (coredump.Proc). A
// runner survives its test process and names it in its crash line:
//
//	process didn't exit successfully: `/c/target/debug/deps/calc-1f2e` (signal: 6, SIGABRT: process abort signal)
//	/bin/bash: line 1: 4242 Segmentation fault      (core dumped) ./crasher
//	../test-driver: line 112: 4242 Segmentation fault (core dumped) "$@" >> "$log_file" 2>&1

var (
	// cargo's line for a process killed by a signal (a test binary, a
	// build script): the command line between backquotes.
	cargoKilledRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile("process didn't exit successfully: `([^`]+)` \\(signal: \\d+")
	})
	// A shell's job report: "NAME: [line N: ]PID MESSAGE [(core dumped)] [COMMAND]".
	shellKilledRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^[^\s:]+: (?:line \d+: +)?(\d+) +(Segmentation fault|Aborted|Bus error|Illegal instruction|Floating point exception|Trace/breakpoint trap|Quit|Bad system call|File size limit exceeded|CPU time limit exceeded)(?: +\(core dumped\))?(?:\s+(.*))?$`)
	})
)

// crashedProc is what the run says of the test process whose crash c
// reports: the crashed case's message (cargo names the test binary), else
// the case's program as its runner names it (exe: meson's or CTest's
// command, testprograms.go), else, when no report tells the crashes apart
// (make), the first crash line of the output that names the process;
// automake's test-driver line is its test's, and its pid comes before the
// test's program (the program itself died, not a worker it forked: a pid
// tells its core from a later run's of the same program). Nothing known
// is the zero Proc.
func crashedProc(sr StepResult, rep *testreport.Report, msg, exe string) coredump.Proc {
	for line := range strings.SplitSeq(msg, "\n") {
		if p := procOfLine(strings.TrimSpace(line)); p.Known() {
			return p
		}
	}
	automake := rep == nil || rep.Format == testreport.FormatAutomake
	if !automake || sr.Outcome == nil {
		return coredump.Proc{Exe: exe}
	}
	if p := firstProcOf(sr.Outcome.Verdict.Indicators, rep != nil); p.Known() {
		return p
	}
	return coredump.Proc{Exe: exe}
}

// firstProcOf is the process of the earliest crash line among the
// indicators that names one; only test-driver lines when driverOnly.
func firstProcOf(ins []verdict.Indicator, driverOnly bool) coredump.Proc {
	ins = slices.Clone(ins)
	slices.SortFunc(ins, func(a, b verdict.Indicator) int { return a.LineNo - b.LineNo })
	for _, in := range ins {
		if !in.Crash || driverOnly && !strings.Contains(in.Line, "test-driver: line ") {
			continue
		}
		if p := procOfLine(in.Line); p.Known() {
			return p
		}
	}
	return coredump.Proc{}
}

// procOfLine reads the process a crash line names.
func procOfLine(line string) coredump.Proc {
	if m := cargoKilledRE().FindStringSubmatch(line); m != nil {
		return coredump.Proc{Exe: commandExe(m[1])}
	}
	m := shellKilledRE().FindStringSubmatch(line)
	if m == nil {
		return coredump.Proc{}
	}
	pid, _ := strconv.Atoi(m[1])
	p := coredump.Proc{Pid: pid}
	if cmd := strings.Fields(m[3]); len(cmd) > 0 && !strings.ContainsAny(cmd[0], `"'$(){};|&<>`) {
		p.Exe = cmd[0]
	}
	return p
}

// commandExe is the program of a command line cargo printed: its program
// unquoted, then the arguments, so a path with a space is the longest
// prefix that is a file.
func commandExe(cmd string) string {
	fields := strings.Fields(cmd)
	for n := len(fields); n > 1; n-- {
		p := strings.Join(fields[:n], " ")
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p
		}
	}
	if len(fields) == 0 {
		return ""
	}
	return fields[0]
}
