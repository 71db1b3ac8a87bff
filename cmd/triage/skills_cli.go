package main

import (
	"fmt"
	"strings"

	"github.com/triage-dev/triage/internal/catalog"
)

// cliSkill is the loop of the MCP skill as shell commands. Every command
// line in its sh blocks ends with the exit status it gives on a project
// whose test crashes; e2e's TestCLISkillCommandsRun runs them all.
func cliSkill(c *catalog.Catalog) string {
	var b strings.Builder
	frontmatter(&b, "triage-cli", "Build, test, run, debug and post-mortem native programs (C, C++, Rust, Go, Swift) "+
		"from a shell with `triage TOOL --KEY VALUE` commands, and never mistake a crash for a success. Use when building "+
		"or testing a project, running a program that may crash or hang, opening a core dump, or debugging, from a terminal.")
	b.WriteString(cliIntro)
	b.WriteString(strings.Replace(verdictSection, "`next:` the exact calls", "`next:` the exact calls (printed as triage commands, quoted for the shell: paste them)", 1))
	b.WriteString(cliLoop)
	writeToolList(&b, c, func(t *catalog.Tool) string {
		ex := strings.TrimSpace(t.Name + " " + examples[t.Name][0])
		return fmt.Sprintf("`triage %s`", ex)
	})
	return b.String()
}

const cliIntro = "# triage from a shell\n\n" +
	"`triage TOOL --KEY VALUE …` makes one tool call and prints its answer; `triage TOOL --help` lists the tool's arguments, " +
	"their types and defaults, and examples. A list argument is repeated (`--args -v --args 2`, or `--args=-v` for a value that starts with -); " +
	"`--json '{…}'` gives all arguments at once; `--output json` prints the structured result.\n\n" +
	"Exit status: 0 success, 1 a failure or crash verdict (or the tool could not do its work), 2 a usage error (the message says what to change).\n\n" +
	"Tools that keep state between commands (`process_*`, `debug_*`, `dump_*`, session defaults) live in a per-user daemon that the first such command starts; " +
	"`triage daemon status` shows it, `triage daemon stop` ends it and everything it started. " +
	"A long build, test or run shows a live status line on a terminal.\n\n"

// cliLoop is the crash loop as commands. $DIR is the project; the test's
// crash answer gives $CORE and $PROGRAM (its `triage dump_open --core …
// --program …`), $FUNCTION (the function its verdict names) and
// $OUTPUT_ID (the `o-…` id of its log).
const cliLoop = "## The crash loop\n\n" +
	"`$DIR` is the project. The crash answer names the rest: `$CORE` and `$PROGRAM` are the `--core` and `--program` of its " +
	"`triage dump_open --core … --program …`, `$FUNCTION` the function its verdict names, `$OUTPUT_ID` the `o-…` id of its log.\n\n" +
	"```sh\n" +
	"triage build --project_dir \"$DIR\"                         # exit 0: BUILD SUCCEEDED\n" +
	"triage test --project_dir \"$DIR\"                          # exit 1: CRASHED … in FUNCTION at FILE:LINE, the core and the next calls\n" +
	"triage output_search --output_id \"$OUTPUT_ID\" --pattern 'FAIL|error'   # exit 0: the matching lines of the whole log\n" +
	"triage output_get --output_id \"$OUTPUT_ID\" --offset 0 --limit 50       # exit 0: a page of it\n" +
	"triage dump_open --core \"$CORE\" --program \"$PROGRAM\"      # exit 0: the dump and where it crashed\n" +
	"triage dump_report                                        # exit 1: the first look at a crashed process, and what to ask next\n" +
	"triage dump_command --command 'bt full'                   # exit 0: any gdb, lldb or drgn command\n" +
	"triage dump_close                                         # exit 0\n" +
	"triage debug_attach --core \"$CORE\" --program \"$PROGRAM\"   # exit 1: CRASHED, the core in the debugger\n" +
	"triage debug_stack                                        # exit 0: the frames; pick the project's\n" +
	"triage debug_variables --frame 1                          # exit 0: that frame's variables\n" +
	"triage debug_detach                                       # exit 0\n" +
	"```\n\n" +
	"Stop before the crash and look around, then let it crash:\n\n" +
	"```sh\n" +
	"triage debug_attach --program \"$PROGRAM\" --breakpoints \"$FUNCTION\"   # exit 0: STOPPED at breakpoint 1 in FUNCTION\n" +
	"triage debug_variables                                    # exit 0\n" +
	"triage debug_continue --wait_s 10                         # exit 1: the next stop, within 10 s: CRASHED\n" +
	"triage debug_detach                                       # exit 0\n" +
	"```\n\n" +
	"A program in the background (a server, a long job):\n\n" +
	"```sh\n" +
	"triage process_start --program \"$PROGRAM\"                 # exit 0: STARTED p1\n" +
	"triage process_output --id p1 --wait_s 5                  # exit 0: its output so far, and how it ended if it did\n" +
	"triage process_stop --id p1                               # exit 1: its verdict (INTERRUPTED when stopped, or how it ended)\n" +
	"```\n\n"
