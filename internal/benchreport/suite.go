package benchreport

import (
	"regexp"
	"strings"
)

// Package is one `go test -bench` invocation of the suite.
type Package struct {
	Dir   string // "./internal/store"
	Bench string // -bench regexp
	// Benchtime is -benchtime for the full and the quick suite ("" is go
	// test's default of 1s).
	Benchtime, QuickBenchtime string
	// Quick includes the package in `make bench-quick`.
	Quick bool
	// QuickBytes is TRIAGE_BENCH_BYTES for `make bench-quick` (0: not set).
	QuickBytes int
}

// Runs reports whether the package's run measures the benchmark named by
// key: same directory, and each level of the name matches the level of
// Bench it meets, as `go test -bench` splits both at "/" (a name deeper
// than Bench runs whole under it).
func (p Package) Runs(key string) bool {
	dir, name, _ := strings.Cut(key, " ")
	if dir != p.Dir {
		return false
	}
	levels, patterns := strings.Split(name, "/"), strings.Split(p.Bench, "/")
	for i := range min(len(levels), len(patterns)) {
		if ok, err := regexp.MatchString(patterns[i], levels[i]); err != nil || !ok {
			return false
		}
	}
	return true
}

// Suite lists the benchmarks the report runs, in order.
var Suite = []Package{
	{Dir: "./e2e", Bench: "^Benchmark(ColdStart|RunTrueOverhead)$", QuickBenchtime: "20x", Quick: true},
	// The CLI's daemon: a call through it against one in-process, and its start.
	{Dir: "./e2e", Bench: "^BenchmarkDaemon(Call|Start)$", QuickBenchtime: "10x", Quick: true},
	// 256 MiB keeps the start of `triage call run` small beside the capture.
	{Dir: "./e2e", Bench: "^Benchmark(RunCapture|ConcurrentCalls)$", QuickBenchtime: "3x", Quick: true, QuickBytes: 256 << 20},
	// output_search through the server over a stored 1 GiB output.
	{Dir: "./e2e", Bench: "^BenchmarkSearchServer$", Benchtime: "5x", QuickBenchtime: "2x", Quick: true, QuickBytes: 256 << 20},
	{Dir: "./internal/store", Bench: "^Benchmark(Capture|Search)$", QuickBenchtime: "2x", Quick: true, QuickBytes: 64 << 20},
	{Dir: "./internal/logfilter", Bench: "^BenchmarkStandard$", QuickBenchtime: "3x", Quick: true},
	// The quick suite checks debug_stack's overhead through MCP only: it
	// includes the Manager's.
	{Dir: "./internal/debugger/dap", Bench: "^BenchmarkStack$", QuickBenchtime: "20x"},
	{Dir: "./internal/workflow/debug", Bench: "^BenchmarkStack$", QuickBenchtime: "20x", Quick: true},
	{Dir: "./internal/workflow/dump", Bench: "^BenchmarkCommand(Cached|Uncached)$", QuickBenchtime: "20x", Quick: true},
	// crash takes about 10 s to open the vmcore: the full suite only.
	{Dir: "./internal/workflow/dump", Bench: "^BenchmarkKernelCommandUncached$", Benchtime: "20x"},
	// Through the test host's sshd (scripts/test-host.sh; root). A remote
	// run goes through the connection's job agent: one fork on the host,
	// no ssh session or shell of its own (docs/PERFORMANCE.md).
	{Dir: "./internal/workflow/run", Bench: "^BenchmarkRemoteRunTrue$", Benchtime: "40x", QuickBenchtime: "20x", Quick: true},
	{Dir: "./internal/workflow/dump", Bench: "^BenchmarkRemoteCommandUncached$", QuickBenchtime: "20x", Quick: true},
	// A Go coverage run of 20 packages against go test -coverprofile on
	// the same module, alternated (seconds each).
	{Dir: "./internal/workflow/run", Bench: "^BenchmarkGoCoverage$", Benchtime: "6x", QuickBenchtime: "4x", Quick: true},
	// test with repeat: 100 of a 10 ms Go test against go test -count=100,
	// alternated (seconds each).
	{Dir: "./internal/workflow/run", Bench: "^BenchmarkGoRepeat$", Benchtime: "6x", QuickBenchtime: "4x", Quick: true},
	// A bisect over 64 commits of a small Go module and of a small CMake
	// project against its steps' own commands run by hand, alternated
	// (seconds each; the full suite only: its runs differ by more than the
	// quick suite's bound allows on a loaded machine).
	{Dir: "./internal/bisect", Bench: "^BenchmarkBisect64$", Benchtime: "5x"},
	// output_get of one file of a stored coverage report of 10,000 files.
	{Dir: "./internal/workflow/output", Bench: "^BenchmarkCoverageFile$", Benchtime: "50x", QuickBenchtime: "10x", Quick: true},
	// A coverage run of a corpus project per toolchain (CTest, make, cargo)
	// against the toolchain's own commands, alternated (the full suite
	// only: the corpus builds take a minute). cjson and semver take
	// seconds a run; uuid and zlib a few hundred milliseconds, whose runs
	// differ by more than the 5% asked, so they take twenty times the
	// iterations: at 30 a run, uuid's five runs spread from 3.6 to 9.7%.
	{Dir: "./e2e/realworld", Bench: "^BenchmarkCorpusCoverage$/^(cjson|semver)$", Benchtime: "3x"},
	{Dir: "./e2e/realworld", Bench: "^BenchmarkCorpusCoverage$/^(uuid|zlib)$", Benchtime: "60x"},
	{Dir: "./internal/server", Bench: "^BenchmarkNew$", QuickBenchtime: "20x"},
	// The web page: the Runs page over 10,000 runs, a new run reaching an
	// open page, the output viewer over a 1 GiB output, and what the page
	// weighs in the binary (two builds).
	{Dir: "./internal/webui", Bench: "^BenchmarkRunsPage$", Benchtime: "20x", QuickBenchtime: "5x", Quick: true},
	{Dir: "./internal/server", Bench: "^BenchmarkLiveUpdate$", Benchtime: "10x", QuickBenchtime: "5x", Quick: true},
	// A debug session's stop reaching an open Sessions page (lldb-vscode).
	{Dir: "./internal/webui", Bench: "^BenchmarkSessionEvent$", Benchtime: "20x", QuickBenchtime: "5x", Quick: true},
	{Dir: "./e2e", Bench: "^BenchmarkOutputViewer$", Benchtime: "3x", QuickBenchtime: "1x", Quick: true, QuickBytes: 256 << 20},
	{Dir: "./e2e", Bench: "^BenchmarkPageSize$", Benchtime: "1x", QuickBenchtime: "1x", Quick: true},
	{Dir: "./internal/hang", Bench: "^BenchmarkCapture(Native50Threads|Go10000Goroutines)$", Benchtime: "5x", QuickBenchtime: "2x", Quick: true},
	// The stall watch (issue 43): one /proc sample of a group, and a
	// deadlock from its start to HUNG under a ten-minute limit (seconds each).
	{Dir: "./internal/stall", Bench: "^BenchmarkGroup(Busy)?$", Benchtime: "1000x", QuickBenchtime: "200x", Quick: true},
	{Dir: "./internal/capture", Bench: "^BenchmarkStall(GoTestToHung|TimeToHung)$", Benchtime: "5x", QuickBenchtime: "2x", Quick: true},
	// Two gdb runs on a core per iteration, about a second each.
	{Dir: "./internal/coredump", Bench: "^BenchmarkCrashSite$", Benchtime: "20x", QuickBenchtime: "5x", Quick: true},
	// debug_observe against gdb's dprintf, 10,000 hits: seconds each, alternated.
	{Dir: "./internal/workflow/observe", Bench: "^BenchmarkObserve10000$", Benchtime: "5x", QuickBenchtime: "1x", Quick: true},
	// An interactive logpoint against lldb's breakpoint command with
	// auto-continue, 10,000 hits: over a minute each on a loaded machine.
	{Dir: "./internal/workflow/debug", Bench: "^BenchmarkLogpoint10000$", Benchtime: "3x", QuickBenchtime: "1x"},
	// A crashed CTest test rerun under memcheck, then the program alone:
	// about a second each.
	{Dir: "./internal/pipeline", Bench: "^BenchmarkMemcheckRerun$", Benchtime: "5x", QuickBenchtime: "2x", Quick: true},
}

// Keys of the figures the report computes itself rather than from a
// benchmark.
const (
	TokensKey = "tokens"
)

// Figures are the report's rows, each with its target from the issue.
var Figures = []Figure{
	{Title: "cold start to tools/list over stdio", Key: Key("./e2e", "BenchmarkColdStart"),
		Value: "triage-ms", Unit: "ms", Base: "bare-ms", BaseLabel: "bare go-sdk server, one tool",
		Check: "ratio", CheckUnit: "×", Op: "<=", Limit: 2},
	{Title: "cold start: CPU time (user + system) of the whole process", Key: Key("./e2e", "BenchmarkColdStart"),
		Value: "triage-cpu-ms", Unit: "ms", Base: "bare-cpu-ms", BaseLabel: "bare go-sdk server"},
	{Title: "idle RSS after tools/list", Key: Key("./e2e", "BenchmarkColdStart"),
		Value: "triage-RSS-MB", Unit: "MB", Base: "bare-RSS-MB", BaseLabel: "bare go-sdk server",
		Op: "<=", Limit: 20},
	{Title: "`run /bin/true` through MCP stdio", Key: Key("./e2e", "BenchmarkRunTrueOverhead"),
		Value: "triage-ms", Unit: "ms", Base: "direct-ms", BaseLabel: "direct fork/exec",
		Check: "overhead-ms", CheckUnit: "ms", Op: "<=", Limit: 3},
	{Title: "`triage call` of a stateless tool through a running daemon", Key: Key("./e2e", "BenchmarkDaemonCall"),
		Value: "daemon-ms", Unit: "ms", Base: "inprocess-ms", BaseLabel: "the same call in-process (TRIAGE_DAEMON=off)",
		Check: "overhead-ms", CheckUnit: "ms", Op: "<=", Limit: 2},
	{Title: "first stateful `triage call`, the daemon's start included", Key: Key("./e2e", "BenchmarkDaemonStart"),
		Value: "first-ms", Unit: "ms", Base: "cold-ms", BaseLabel: "the same call in-process: a cold start",
		Check: "ratio", CheckUnit: "×", Op: "<=", Limit: 3},
	{Title: "capture of 1 GiB through `triage call run`", Key: Key("./e2e", "BenchmarkRunCapture"),
		Value: "triage-MB/s", Unit: "MB/s", Base: "direct-MB/s", BaseLabel: "the program into a pipe, discarded",
		Op: ">=", Limit: 300},
	{Title: "capture per CPU second of triage (user + system)", Key: Key("./e2e", "BenchmarkRunCapture"),
		Value: "MB/cpu-s", Unit: "MB/s"},
	{Title: "peak RSS while capturing", Key: Key("./e2e", "BenchmarkRunCapture"),
		Value: "peak-RSS-MB", Unit: "MB", Op: "<=", Limit: 64},
	{Title: "50 concurrent tool calls over HTTP: failed calls", Key: Key("./e2e", "BenchmarkConcurrentCalls"),
		Value: "errors", Unit: "", Op: "<=", Limit: 0},
	{Title: "50 concurrent tool calls: throughput", Key: Key("./e2e", "BenchmarkConcurrentCalls"),
		Value: "calls/s", Unit: "calls/s"},
	{Title: "50 concurrent tool calls: p99 latency", Key: Key("./e2e", "BenchmarkConcurrentCalls"),
		Value: "p99-ms", Unit: "ms", Base: "alone-p50-ms", BaseLabel: "median of the same calls one at a time"},
	{Title: "store capture of 1 GiB, writer alone", Key: Key("./internal/store", "BenchmarkCapture"),
		Value: "MB/s", Unit: "MB/s", Op: ">=", Limit: 300},
	searchFigure("literal prefix", "prefix", "grep -E -c"),
	searchFigure("inner literal", "inner", "grep -E -c"),
	searchFigure("alternation", "alternation", "grep -E -c"),
	searchFigure("case-folded", "fold", "grep -i -E -c"),
	{Title: "`output_search` through `serve --http`, 1 GiB output, 100,000 matches", Key: Key("./e2e", "BenchmarkSearchServer"),
		Value: "search-ms", Unit: "ms", Base: "grep-ms", BaseLabel: "`grep -E -c`, the output's log copied out of its body file",
		Check: "ratio-vs-grep", CheckUnit: "×", Op: "<=", Limit: 3},
	{Title: "server peak RSS during that search", Key: Key("./e2e", "BenchmarkSearchServer"),
		Value: "peak-RSS-MB", Unit: "MB", Op: "<=", Limit: 64},
	{Title: "that search's answer, text and structured content", Key: Key("./e2e", "BenchmarkSearchServer"),
		Value: "answer-KB", Unit: "KB", Op: "<=", Limit: 64},
	{Title: "4 concurrent largest searches (4 KB pattern, 1,000 matches, context 20): server peak RSS", Key: Key("./e2e", "BenchmarkSearchServer"),
		Value: "worst4-peak-RSS-MB", Unit: "MB", Base: "worst4-base-RSS-MB", BaseLabel: "RSS before them",
		Op: "<=", Limit: 256},
	{Title: "server RSS once idle after them, over the RSS before them", Key: Key("./e2e", "BenchmarkSearchServer"),
		Value: "worst4-after-%", Unit: "%", Op: "<=", Limit: 10},
	{Title: "logfilter `standard`, 100 MB of corpus logs", Key: Key("./internal/logfilter", "BenchmarkStandard"),
		Value: "filter-MB/s", Unit: "MB/s", Base: "grep-MB/s", BaseLabel: "`grep -c -E`, same bytes",
		Op: ">=", Limit: 450},
	{Title: "logfilter `standard` vs grep", Key: Key("./internal/logfilter", "BenchmarkStandard"),
		Value: "ratio-vs-grep", Unit: "×", Op: ">=", Limit: 1.0 / 3},
	{Title: "`debug_stack` via the Manager (lldb-vscode)", Key: Key("./internal/debugger/dap", "BenchmarkStack"),
		Value: "manager-ms", Unit: "ms", Base: "direct-ms", BaseLabel: "the same DAP request sent directly",
		Check: "overhead-ms", CheckUnit: "ms", Op: "<=", Limit: 2},
	{Title: "`debug_stack` through MCP (in-process client)", Key: Key("./internal/workflow/debug", "BenchmarkStack"),
		Value: "mcp-ms", Unit: "ms", Base: "direct-ms", BaseLabel: "the backend's stack request",
		Check: "overhead-ms", CheckUnit: "ms", Op: "<=", Limit: 2},
	{Title: "cached `dump_command` (gdb, process core) through MCP", Key: Key("./internal/workflow/dump", "BenchmarkCommandCached"),
		Value: "mcp-ms", Unit: "ms", Op: "<=", Limit: 2},
	{Title: "uncached `dump_command` (gdb `bt`) through MCP", Key: Key("./internal/workflow/dump", "BenchmarkCommandUncached"),
		Value: "mcp-ms", Unit: "ms", Base: "engine-ms", BaseLabel: "gdb through the session's REPL",
		Check: "overhead-%", CheckUnit: "%", Op: "<=", Limit: 10,
		Or: &Target{Check: "overhead-ms", Unit: "ms", Op: "<=", Limit: 5}},
	{Title: "uncached `dump_command` (crash `log`, kernel vmcore) through MCP", Key: Key("./internal/workflow/dump", "BenchmarkKernelCommandUncached"),
		Value: "mcp-ms", Unit: "ms", Base: "engine-ms", BaseLabel: "crash through the session's REPL",
		Check: "overhead-%", CheckUnit: "%", Op: "<=", Limit: 10,
		Or: &Target{Check: "overhead-ms", Unit: "ms", Op: "<=", Limit: 5}},
	{Title: "`run true` on a host over ssh (its connection up)", Key: Key("./internal/workflow/run", "BenchmarkRemoteRunTrue"),
		Value: "remote-ms", Unit: "ms", Base: "local-ms", BaseLabel: "the same `run` here",
		Check: "overhead-ms", CheckUnit: "ms", Op: "<=", Limit: 20},
	{Title: "`test` with coverage, a Go module of 20 packages", Key: Key("./internal/workflow/run", "BenchmarkGoCoverage"),
		Value: "triage-ms", Unit: "ms", Base: "go-ms", BaseLabel: "go test -covermode=atomic -coverpkg=./... -coverprofile, then the failed test alone (its path)",
		Check: "overhead-%", CheckUnit: "%", Op: "<=", Limit: 5},
	{Title: "`test` with `repeat: 100`, a 10 ms Go test (one go test -count=100 under triage)", Key: Key("./internal/workflow/run", "BenchmarkGoRepeat"),
		Value: "triage-ms", Unit: "ms", Base: "go-ms", BaseLabel: "go test -count=100 itself",
		Check: "overhead-%", CheckUnit: "%", Op: "<=", Limit: 10},
	bisectFigure("go", "a small Go module", "go test -json ./..."),
	bisectSteps("go", "a small Go module"),
	bisectFigure("cmake", "a small CMake project", "cmake configure, cmake --build, ctest"),
	bisectSteps("cmake", "a small CMake project"),
	corpusCoverage("uuid", "go", "go test -covermode=atomic -coverpkg=./... -coverprofile from a shell"),
	corpusCoverage("cjson", "CTest", "its cmake configure, build and ctest from a shell, then gcov --json-format"),
	corpusCoverage("zlib", "make", "its make test with --coverage from a shell, then gcov --json-format"),
	corpusCoverage("semver", "cargo", "cargo test with -C instrument-coverage, the test programs' list, llvm-profdata merge, llvm-cov export"),
	{Title: "`output_get` of one file of a stored coverage report of 10,000 files", Key: Key("./internal/workflow/output", "BenchmarkCoverageFile"),
		Value: "query-ms", Unit: "ms", Op: "<=", Limit: 20},
	{Title: "uncached `dump_command` (gdb `bt`) on a host's core over ssh", Key: Key("./internal/workflow/dump", "BenchmarkRemoteCommandUncached"),
		Value: "mcp-ms", Unit: "ms", Base: "engine-ms", BaseLabel: "the host's gdb through the session's REPL",
		Check: "overhead-ms", CheckUnit: "ms", Op: "<=", Limit: 5},
	{Title: "web page: Runs page of 10,000 stored runs, server time", Key: Key("./internal/webui", "BenchmarkRunsPage"),
		Value: "runs-ms", Unit: "ms", Op: "<=", Limit: 50},
	{Title: "web page: Runs page filtered by status and text, 10,000 runs", Key: Key("./internal/webui", "BenchmarkRunsPage"),
		Value: "filtered-ms", Unit: "ms", Op: "<=", Limit: 50},
	{Title: "web page: the Runs filter's tools, 10,000 runs", Key: Key("./internal/webui", "BenchmarkRunsPage"),
		Value: "tools-ms", Unit: "ms", Op: "<=", Limit: 50},
	{Title: "web page: a finished call on an open page (the page's own server), worst", Key: Key("./internal/server", "BenchmarkLiveUpdate"),
		Value: "local-max-ms", Unit: "ms", Base: "local-ms", BaseLabel: "median", Op: "<=", Limit: 1000},
	{Title: "web page: a finished call by another server sharing the store, worst", Key: Key("./internal/server", "BenchmarkLiveUpdate"),
		Value: "other-max-ms", Unit: "ms", Base: "other-ms", BaseLabel: "median", Op: "<=", Limit: 1000},
	{Title: "web page: a debug stop on an open Sessions page, a continue that waited, worst", Key: Key("./internal/webui", "BenchmarkSessionEvent"),
		Value: "wait-max-ms", Unit: "ms", Base: "wait-ms", BaseLabel: "median", Op: "<=", Limit: 1000},
	{Title: "web page: a debug stop no call waited for, on an open Sessions page, worst", Key: Key("./internal/webui", "BenchmarkSessionEvent"),
		Value: "told-max-ms", Unit: "ms", Base: "told-ms", BaseLabel: "median", Op: "<=", Limit: 1000},
	{Title: "web page: output viewer's first page of a 1 GiB output", Key: Key("./e2e", "BenchmarkOutputViewer"),
		Value: "first-page-ms", Unit: "ms", Base: "jump-ms", BaseLabel: "a page anywhere in it", Op: "<=", Limit: 100},
	{Title: "web page: server peak RSS paging through that output", Key: Key("./e2e", "BenchmarkOutputViewer"),
		Value: "peak-RSS-MB", Unit: "MB", Op: "<=", Limit: 64},
	{Title: "web page: what it adds to the binary (a build without it)", Key: Key("./e2e", "BenchmarkPageSize"),
		Value: "page-MB", Unit: "MB", Base: "binary-MB", BaseLabel: "the whole binary", Op: "<=", Limit: 1.5},
	{Title: "web page: its embedded HTML, CSS and JavaScript", Key: Key("./e2e", "BenchmarkPageSize"),
		Value: "assets-KB", Unit: "KB"},
	{Title: "building the server, all workflows", Key: Key("./internal/server", "BenchmarkNew"),
		Value: "ns/op", Unit: "ms", Scale: 1e-6},
	{Title: "hang evidence: stacks of a 50-thread C program (gdb attach)", Key: Key("./internal/hang", "BenchmarkCaptureNative50Threads"),
		Value: "ns/op", Unit: "s", Scale: 1e-9, Op: "<=", Limit: 2},
	{Title: "hang evidence: a Go program's 10,000 goroutines (SIGQUIT dump)", Key: Key("./internal/hang", "BenchmarkCaptureGo10000Goroutines"),
		Value: "capture-s", Unit: "s", Base: "dump-s", BaseLabel: "the program's own dump into a plain pipe reader", Op: "<=", Limit: 2,
		// Most of it is the Go runtime writing its goroutines, a write per
		// field: no capture can take less than the program alone.
		Or: &Target{Check: "ratio", Unit: "×", Op: "<=", Limit: 1.1}},
	{Title: "stall watch: a sample a second of a group of 64 blocked threads (every thread's /proc read), share of one core", Key: Key("./internal/stall", "BenchmarkGroup"),
		Value: "core-%", Unit: "%", Op: "<=", Limit: 1},
	{Title: "stall watch: a sample a second of a program that computes, share of one core", Key: Key("./internal/stall", "BenchmarkGroupBusy"),
		Value: "core-%", Unit: "%", Op: "<=", Limit: 1},
	{Title: "a Go test deadlocked from its start: HUNG past stall_s (2 s), under a ten-minute limit", Key: Key("./internal/capture", "BenchmarkStallGoTestToHung"),
		Value: "over-limit-s", Unit: "s", Op: "<=", Limit: 3},
	{Title: "a C program in an ABBA mutex deadlock: HUNG past stall_s (2 s), stacks and holders included", Key: Key("./internal/capture", "BenchmarkStallTimeToHung"),
		Value: "over-limit-s", Unit: "s", Op: "<=", Limit: 3},
	{Title: "crash site in a `run` verdict (gdb, NULL-deref core): what it adds to the backtrace", Key: Key("./internal/coredump", "BenchmarkCrashSite"),
		Value: "site-ms", Unit: "ms", Base: "backtrace-ms", BaseLabel: "the backtrace alone, same gdb and core",
		Check: "overhead-pct", CheckUnit: "%", Op: "<=", Limit: 20},
	{Title: "`debug_observe`: a tracepoint hit 10,000 times in a loop (two values a hit, event log stored)", Key: Key("./internal/workflow/observe", "BenchmarkObserve10000"),
		Value: "observe-s", Unit: "s", Base: "dprintf-s", BaseLabel: "gdb's own dprintf, same program",
		Check: "ratio", CheckUnit: "×", Op: "<=", Limit: 1.5},
	{Title: "`debug_observe`, 10,000 hits: CPU time (gdb, the program, the server)", Key: Key("./internal/workflow/observe", "BenchmarkObserve10000"),
		Value: "observe-cpu-s", Unit: "s", Base: "dprintf-cpu-s", BaseLabel: "gdb's dprintf (gdb and the program)",
		Check: "cpu-ratio", CheckUnit: "×"},
	{Title: "interactive logpoint (`debug_breakpoint_add` log_message, lldb backend): a loop hit 10,000 times, attach to exit", Key: Key("./internal/workflow/debug", "BenchmarkLogpoint10000"),
		Value: "logpoint-s", Unit: "s", Base: "native-s", BaseLabel: "lldb's breakpoint command with auto-continue, same program",
		Check: "ratio", CheckUnit: "×", Op: "<=", Limit: 1.5},
	{Title: "the same logpoint on the DAP backend (the lldb adapter's own logMessage), for comparison", Key: Key("./internal/workflow/debug", "BenchmarkLogpoint10000"),
		Value: "dap-logpoint-s", Unit: "s", Base: "native-s", BaseLabel: "the lldb command line's breakpoint command with auto-continue"},
	{Title: "automatic memcheck rerun of a crashed test (small C project under CTest, the crash a heap overrun seen later in malloc)", Key: Key("./internal/pipeline", "BenchmarkMemcheckRerun"),
		Value: "memcheck-ms", Unit: "ms", Base: "test-ms", BaseLabel: "the test's program alone, as the rerun ran it",
		Check: "ratio", CheckUnit: "×"},
	{Title: "tools/list, default workflows on this machine", Key: TokensKey,
		Value: "default-tokens", Unit: "tokens", Base: "default-bytes", BaseLabel: "bytes (tokens ≈ bytes/4)",
		Op: "<=", Limit: 6400},
	{Title: "tools/list, all workflows (`--all`)", Key: TokensKey,
		Value: "all-tokens", Unit: "tokens", Base: "all-bytes", BaseLabel: "bytes"},
}

// searchFigure is output_search on one kind of pattern against grep over the
// same bytes, at most 3× its time.
func searchFigure(kind, sub, grep string) Figure {
	return Figure{Title: "`output_search`, " + kind, Key: Key("./internal/store", "BenchmarkSearch/"+sub),
		Value: "search-ms", Unit: "ms", Base: "grep-ms", BaseLabel: "`" + grep + "`, same bytes",
		Check: "ratio-vs-grep", CheckUnit: "×", Op: "<=", Limit: 3}
}

// bisectFigure is a bisect over 64 commits of project against the same
// steps' commands run by hand at the same revisions (internal/bisect).
func bisectFigure(sub, project, own string) Figure {
	return Figure{Title: "`bisect` over 64 commits, " + project + ": beyond its test runs and builds", Key: Key("./internal/bisect", "BenchmarkBisect64/"+sub),
		Value: "bisect-ms", Unit: "ms", Base: "runs-ms", BaseLabel: "the same steps' " + own + " by hand",
		Check: "overhead-%", CheckUnit: "%", Op: "<=", Limit: 5}
}

// bisectSteps is the test runs a bisect over 64 commits takes: at most
// ⌈log2(64)⌉ + 2.
func bisectSteps(sub, project string) Figure {
	return Figure{Title: "`bisect` over 64 commits, " + project + ": test runs (each with its build)", Key: Key("./internal/bisect", "BenchmarkBisect64/"+sub),
		Value: "steps", Unit: "runs", Op: "<=", Limit: 8}
}

// corpusCoverage is the figure of a corpus project's coverage run against
// the toolchain's own commands (e2e/realworld).
// triage's side is a call in one `triage serve` session, as an agent makes
// it (the benchmark reports `triage call`'s time apart, as cli-ms). Its
// overhead is the median over pairs, each call against the own run beside
// it, not the difference of the two medians the other columns show.
func corpusCoverage(project, toolchain, own string) Figure {
	return Figure{Title: "`test` with coverage, corpus project " + project + " (" + toolchain + "), a call in a session; overhead: median of the pairs",
		Key:   Key("./e2e/realworld", "BenchmarkCorpusCoverage/"+project),
		Value: "triage-ms", Unit: "ms", Base: "own-ms", BaseLabel: own,
		Check: "overhead-%", CheckUnit: "%", Op: "<=", Limit: 5}
}
