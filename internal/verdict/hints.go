package verdict

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/triage-dev/triage/internal/spawn"
)

// evidenceOf returns the first evidence of kind that points at a file;
// entries that only explain an absence ("no core dump: ...") do not count.
func evidenceOf(evs []Evidence, kind string) *Evidence {
	for i := range evs {
		if evs[i].Kind == kind && evs[i].Path != "" {
			return &evs[i]
		}
	}
	return nil
}

// hints names the next triage calls.
func hints(v Verdict, in Input, primary *Indicator) []Hint {
	if v.Status == StatusSuccess {
		return nil
	}
	var hs []Hint
	if ev := evidenceOf(v.Evidence, "core_dump"); ev != nil {
		args := map[string]any{"core": ev.Path}
		if in.Result != nil && in.Result.Path != "" {
			args["program"] = in.Result.Path
		} else if in.Result != nil && len(in.Result.Argv) > 0 {
			args["program"] = in.Result.Argv[0]
		}
		onHost(args, in.SSHHost)
		hs = append(hs, Hint{Text: "open the core dump to see the crashing thread's stack and variables",
			Tool: "dump_open", Args: args})
		if _, ok := args["program"]; ok {
			hs = append(hs, Hint{Text: "or examine it in the debugger (then debug_stack, debug_variables)",
				Tool: "debug_attach", Args: onHost(map[string]any{"core": args["core"], "program": args["program"]}, in.SSHHost)})
		}
	}
	if ev := evidenceOf(v.Evidence, "crash_report"); ev != nil {
		hs = append(hs, Hint{Text: "read the crash report", Tool: "crash_report_show", Args: map[string]any{"path": ev.Path}})
	}
	program := in.Program
	if program == "" && len(in.Result.Argv) > 0 {
		program = in.Result.Argv[0]
	}
	switch v.Status {
	case StatusCrash:
		if evidenceOf(v.Evidence, "core_dump") == nil && program != "" {
			hs = append(hs, Hint{Text: "re-run under the debugger to stop at the crash",
				Tool: "debug_attach", Args: onHost(relaunch(program, in.Result), in.SSHHost)})
		}
	case StatusTimeout:
		if program != "" {
			hs = append(hs, Hint{Text: "re-run under the debugger and pause it to see where it hangs, or raise timeout_s",
				Tool: "debug_attach", Args: onHost(relaunch(program, in.Result), in.SSHHost)})
		}
	case StatusSilentFailure:
		text := "the program exited without a word"
		if v.Meaning != "" {
			text += fmt.Sprintf(" (exit %d: %s)", v.ExitCode, v.Meaning)
		}
		hs = append(hs, Hint{Text: text + "; re-run under the debugger with a breakpoint on exit",
			Tool: "debug_attach", Args: onHost(relaunch(program, in.Result), in.SSHHost)})
	}
	if in.OutputID != "" && v.Status != StatusSilentFailure && !shownWhole(in.Scan) {
		pattern := `(?i)error|fail|fatal|panic`
		if primary != nil {
			pattern = regexp.QuoteMeta(primaryKey(primary))
		}
		hs = append(hs, Hint{Text: "search the full output for the first error",
			Tool: "output_search", Args: map[string]any{"output_id": in.OutputID, "pattern": pattern}})
	}
	return hs
}

// shownWhole: an output this short is in every answer whole (an excerpt's
// budget is never under a KiB), so a search of it finds nothing new.
func shownWhole(s *Scanner) bool {
	return s != nil && s.Lines() <= 10 && s.Bytes() <= 1024
}

// relaunch is debug_attach's arguments to run the program again as it ran:
// same arguments, same working directory.
func relaunch(program string, r *spawn.Result) map[string]any {
	args := map[string]any{"program": program, "args": argsOf(r)}
	if r.Dir != "" {
		args["cwd"] = r.Dir
	}
	return args
}

// onHost adds ssh_host to a hint's arguments when the run was on another
// host: its paths are that host's.
func onHost(args map[string]any, host string) map[string]any {
	if host != "" {
		args["ssh_host"] = host
	}
	return args
}

func argsOf(r *spawn.Result) []string {
	if len(r.Argv) <= 1 {
		return []string{}
	}
	return r.Argv[1:]
}

// primaryKey is the literal that identifies an indicator's lines.
func primaryKey(in *Indicator) string {
	for _, p := range patterns() {
		if p.name == in.Name && p.pack == in.Pack {
			return strings.TrimSpace(p.key)
		}
	}
	return in.Name
}
