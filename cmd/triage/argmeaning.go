package main

// argMeaning is what `triage TOOL --help` says of an argument whose schema
// has no description: tools/list leaves those out to stay within its token
// budget (the names speak to an agent that reads the whole schema), but a
// person at a shell reads one line per argument. A key "tool.arg" is that
// tool's own meaning; "arg" is the meaning wherever else it appears.
var argMeaning = map[string]string{
	"build.args":                     "more arguments for the build command (go build, cargo build, make …)",
	"test.args":                      "more arguments for the test runner",
	"debug_attach.args":              "the program's arguments",
	"debug_attach.core":              "a core file to open (with --program, its executable)",
	"debug_attach.pid":               "a running process to attach to",
	"debug_attach.stop_on_entry":     "stop at the program's first instruction",
	"debug_attach.debugger_backend":  "session default for --backend (dap or lldb); --backend wins",
	"debug_breakpoint_add.condition": "an expression in the program's language: stop only when it is true",
	"debug_stack.thread":             "a thread as the list shows it (#N, or its id); default: the stopped thread",
	"debug_variables.thread":         "a thread as debug_stack lists it (#N, or its id); default: the stopped thread",
	"debug_step.thread":              "a thread as debug_stack lists it (#N, or its id); default: the stopped thread",
	"dump_open.core":                 "a core file",
	"dump_open.program":              "the executable the core is of",
	"dump_open.vmcore":               "a Linux kernel crash dump (opened with crash or drgn)",
	"dump_command.engine":            "crash, drgn, gdb or lldb (default: the one the command is routed to, or its prefix names)",
	"session_use_profile.profile":    "a profile by name (session_show_defaults lists them; a new one starts empty)",
	"process_output.id":              "the process (process_start gave it; process_list lists them)",
	"process_stop.id":                "the process (process_start gave it; process_list lists them)",
	"crash_report_show.path":         "a crash report (.ips or .crash) file",
	"debug_breakpoint_remove.id":     "the breakpoint's id, as debug_breakpoint_add gave it",
	"debug_evaluate.expression":      "an expression in the program's language",
	"debug_command.command":          "a command in the debugger's own language (lldb's or gdb's)",
	"output_get.output_id":           "the output's id (o-…), as an answer named it",
	"args":                           "arguments (repeat --args for each)",
	"env":                            `environment variables to set, as JSON: '{"NAME":"value"}'`,
	"unset":                          "environment variables to remove (repeat --unset for each)",
	"stdin":                          "text given to the program on its standard input",
	"jobs":                           "parallel jobs (default: the toolchain's own)",
	"project_dir":                    "the project's directory (default: the session default, else here)",
	"session_id":                     "the session (default: the current one, the last opened)",
	"configuration":                  "Debug or Release (default: the scheme's)",
	"scheme":                         "the Xcode scheme (default: the session default, else the only one)",
	"project_path":                   "an .xcodeproj",
	"workspace_path":                 "an .xcworkspace",
	"simulator_id":                   "a simulator's UDID (sim_list lists them)",
	"simulator_name":                 `a simulator by name ("iPhone 16")`,
	"device_id":                      "a device's UDID (device_list lists them)",
}

// argHelp is the line --help writes for argument arg of tool: the schema's
// description, else the meaning above; then what the tool's Help adds.
func argHelp(tool, arg, desc, extra string) string {
	if desc == "" {
		desc = argMeaning[tool+"."+arg]
	}
	if desc == "" {
		desc = argMeaning[arg]
	}
	if extra != "" {
		desc = desc + "; " + extra
	}
	return desc
}
