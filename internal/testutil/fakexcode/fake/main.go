// Command fake stands in for Apple's xcodebuild and xcrun in tests on
// machines without Xcode. Installed under both names, it replays what a
// scenario file (JSON, named by $FAKEXCODE_SCENARIO) says the command line
// should produce: recorded output, an exit status, a signal, a hang, a
// result bundle or crash reports written as the real tools would.
//
// Every invocation is appended to the scenario's record file as one JSON
// line ({"tool": "xcodebuild", "argv": [...]}), so tests can check the
// command lines triage built. A command line no rule matches exits 70 with
// a message naming it.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// scenario is the file $FAKEXCODE_SCENARIO names.
type scenario struct {
	// Record, when set, receives one JSON line per invocation.
	Record string `json:"record"`
	Rules  []rule `json:"rules"`
}

// rule says how to answer the command lines it matches.
type rule struct {
	// Tool is the name the fake was run as: "xcodebuild", "xcrun" or one
	// of the scenario's other tools.
	Tool string `json:"tool"`
	// Match are arguments that must all appear, in this order, among the
	// arguments ("*" matches any one argument).
	Match []string `json:"match"`
	// Stdout and Stderr are printed as given; StdoutFile is copied to
	// stdout after Stdout.
	Stdout     string `json:"stdout"`
	StdoutFile string `json:"stdout_file"`
	Stderr     string `json:"stderr"`
	Exit       int    `json:"exit"`
	// Signal ("SIGSEGV", "SIGABRT", "SIGKILL") kills the fake with that
	// signal once the output is written.
	Signal string `json:"signal"`
	// Hang keeps the fake (and a child it forks) alive until killed; their
	// pids are written to PidFile, then "hanging" is printed.
	Hang    bool   `json:"hang"`
	PidFile string `json:"pid_file"`
	// IgnoreTerm makes a hanging fake ignore SIGTERM, so only SIGKILL ends it.
	IgnoreTerm bool `json:"ignore_term"`
	// ResultBundle creates the directory given with -resultBundlePath.
	ResultBundle bool `json:"result_bundle"`
	// WriteArg writes WriteFile's content to the argument at that index
	// from the end (1: the last argument), as `simctl io screenshot` does.
	WriteArg  int    `json:"write_arg"`
	WriteFile string `json:"write_file"`
	// Reports are crash reports copied into ReportDir before the fake
	// answers, as ReportCrash would write them when a process dies.
	Reports   []string `json:"reports"`
	ReportDir string   `json:"report_dir"`
	// WriteAfter writes WriteFile's content to the argument that follows
	// this flag, as devicectl does with --json-output FILE.
	WriteAfter string `json:"write_after"`
	// ReportDirAfter names the flag whose argument is the directory
	// Reports are copied into, as `devicectl device copy from
	// --destination DIR` fills it (ReportDir is then not used).
	ReportDirAfter string `json:"report_dir_after"`
}

func main() {
	if os.Getenv("FAKEXCODE_HANG_CHILD") == "1" {
		hangForever(os.Getenv("FAKEXCODE_IGNORE_TERM") == "1")
	}
	tool := filepath.Base(os.Args[0])
	args := os.Args[1:]
	sc, err := load(os.Getenv("FAKEXCODE_SCENARIO"))
	if err != nil {
		fail(70, "fake %s: %v", tool, err)
	}
	record(sc.Record, tool, args)
	for _, r := range sc.Rules {
		if r.Tool == tool && matches(r.Match, args) {
			answer(r, args)
			return
		}
	}
	fail(70, "fake %s: no rule for %q", tool, args)
}

func load(path string) (*scenario, error) {
	if path == "" {
		return nil, fmt.Errorf("FAKEXCODE_SCENARIO is not set")
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var sc scenario
	if err := json.Unmarshal(raw, &sc); err != nil {
		return nil, fmt.Errorf("reading scenario %s: %w", path, err)
	}
	return &sc, nil
}

func record(path, tool string, args []string) {
	if path == "" {
		return
	}
	line, _ := json.Marshal(map[string]any{"tool": tool, "argv": args})
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		fail(70, "fake: recording the call: %v", err)
	}
	f.Write(append(line, '\n'))
	f.Close()
}

// matches reports whether want appears in args as a subsequence.
func matches(want, args []string) bool {
	i := 0
	for _, a := range args {
		if i < len(want) && (want[i] == "*" || want[i] == a) {
			i++
		}
	}
	return i == len(want)
}

func answer(r rule, args []string) {
	dir := r.ReportDir
	if r.ReportDirAfter != "" {
		dir = argAfter(args, r.ReportDirAfter)
	}
	for _, src := range r.Reports {
		copyFile(src, filepath.Join(dir, filepath.Base(src)))
	}
	if r.ResultBundle {
		if p := argAfter(args, "-resultBundlePath"); p != "" {
			if err := os.MkdirAll(p, 0o755); err != nil {
				fail(70, "fake: creating the result bundle: %v", err)
			}
		}
	}
	if r.WriteArg > 0 && r.WriteArg <= len(args) {
		copyFile(r.WriteFile, args[len(args)-r.WriteArg])
	}
	if r.WriteAfter != "" {
		if p := argAfter(args, r.WriteAfter); p != "" {
			copyFile(r.WriteFile, p)
		}
	}
	os.Stdout.WriteString(r.Stdout)
	if r.StdoutFile != "" {
		data, err := os.ReadFile(r.StdoutFile)
		if err != nil {
			fail(70, "fake: %v", err)
		}
		os.Stdout.Write(data)
	}
	os.Stderr.WriteString(r.Stderr)
	switch {
	case r.Hang:
		hang(r)
	case r.Signal != "":
		die(r.Signal)
	}
	os.Exit(r.Exit)
}

func argAfter(args []string, flag string) string {
	for i, a := range args {
		if a == flag && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

func copyFile(src, dst string) {
	data, err := os.ReadFile(src)
	if err == nil {
		err = os.WriteFile(dst, data, 0o644)
	}
	if err != nil {
		fail(70, "fake: copying %s: %v", src, err)
	}
}

func fail(code int, format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	os.Exit(code)
}

// hang forks a child that hangs too (a stand-in for the simulator and test
// runner processes xcodebuild spawns), records both pids, and waits.
func hang(r rule) {
	self, err := os.Executable()
	if err != nil {
		fail(70, "fake: %v", err)
	}
	env := append(os.Environ(), "FAKEXCODE_HANG_CHILD=1")
	if r.IgnoreTerm {
		env = append(env, "FAKEXCODE_IGNORE_TERM=1")
	}
	child, err := os.StartProcess(self, []string{self}, &os.ProcAttr{
		Env:   env,
		Files: []*os.File{nil, os.Stdout, os.Stderr}, // holds stdout open, like a real runner
	})
	if err != nil {
		fail(70, "fake: starting the hanging child: %v", err)
	}
	if r.PidFile != "" {
		pids := fmt.Sprintf("%d %d\n", os.Getpid(), child.Pid)
		if err := os.WriteFile(r.PidFile, []byte(pids), 0o644); err != nil {
			fail(70, "fake: %v", err)
		}
	}
	fmt.Println("hanging")
	hangForever(r.IgnoreTerm)
}
