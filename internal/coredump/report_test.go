package coredump

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const crashReportsDir = "../../../shared/fixtures/crash-reports"

// reportWant is what a reader of each fixture sees in it, written by hand.
type reportWant struct {
	format, process       string
	pid                   int
	exception, signal     string
	crashedThread         int
	topModule, topSymbol  string // topSymbol "" = unsymbolicated frame 0
	topFile               string
	topLine               int
	asiContains           string
	lastExceptionTop      string
	terminationNamespace  string
	terminationCode       string
	identifier, osContain string
}

var fixtureWants = map[string]reportWant{
	"idb_agent_custom_set.crash": {
		format: "crash", process: "WebDriverAgent", pid: 39655,
		exception: "EXC_CRASH", signal: "SIGABRT", crashedThread: 0,
		topModule: "libsystem_kernel.dylib", topSymbol: "__pthread_kill",
		asiContains:      "NSInvalidArgumentException",
		lastExceptionTop: "__exceptionPreprocess",
		identifier:       "WebDriverAgent", osContain: "10.11.3",
	},
	"idb_app_custom_set.crash": {
		format: "crash", process: "TableSearch", pid: 40119,
		exception: "EXC_CRASH", signal: "SIGABRT", crashedThread: 0,
		topModule: "libsystem_kernel.dylib", topSymbol: "__pthread_kill",
		asiContains:      "unrecognized selector sent to instance 0x7a93b010",
		lastExceptionTop: "__exceptionPreprocess",
		identifier:       "TableSearch", osContain: "15D21",
	},
	"idb_xctest-concated-json-crash.ips": {
		// The header says "xctest2" (and a hostile app_name); the body's procName wins.
		format: "ips", process: "xctest3", pid: 82406,
		exception: "EXC_BREAKPOINT", signal: "SIGTRAP", crashedThread: 0,
		topModule: "TpxUnitTests", topSymbol: "-[TpxUnitTests testExample1]",
		topFile: "TpxUnitTests.m", topLine: 15,
		asiContains:          "CoreSimulator 802.6",
		terminationNamespace: "SIGNAL", terminationCode: "5",
		osContain: "macOS 12.3.1",
	},
	"llvm_lldb_asi_nsexception.ips": {
		format: "ips", process: "asi", pid: 96535,
		exception: "EXC_CRASH", signal: "SIGABRT", crashedThread: 0,
		topModule: "libsystem_kernel.dylib", topSymbol: "__pthread_kill",
		asiContains:      "'NSRangeException', reason: '*** __boundsFail: index 10 beyond bounds [0 .. 3]'",
		lastExceptionTop: "__exceptionPreprocess",
		osContain:        "macOS 13.0",
	},
	"maestro_MemoryLeakingApp-2022-08-05-132419.ips": {
		format: "ips", process: "MemoryLeakingApp", pid: 8592,
		exception: "EXC_CRASH", signal: "SIGSEGV", crashedThread: 0,
		topModule: "libsystem_kernel.dylib", topSymbol: "__pthread_kill",
		identifier: "dev.mobile.MemoryLeakingApp", osContain: "21F79",
	},
	"maestro_ReportCrash_non_symbolicated.crash": {
		format: "crash", process: "ReportCrash", pid: 31152,
		exception: "EXC_BAD_ACCESS", signal: "SIGSEGV", crashedThread: 1,
		topModule: "libdyld.dylib", topSymbol: "dyld4::Atlas::Mapper::mapperForSharedCache(char const*, DRL::UUID const&, void const*)",
		asiContains:          "CORPSE: Extracting",
		terminationNamespace: "SIGNAL", terminationCode: "0xb",
		identifier: "ReportCrash", osContain: "macOS 12.3",
	},
	"sentry_acrp_XCDYouTubeKit-54.crash": {
		format: "crash", process: "iTubeDownloader", pid: 590,
		exception: "SIGSEGV", signal: "SIGSEGV", crashedThread: 0,
		topModule: "com.apple.JavaScriptCore", topSymbol: "JSValueIsString",
		identifier: "com.AlphaSoft.iTubeDownloader", osContain: "10.8.5",
	},
	"sentry_acrp_bruno.crash": {
		format: "crash", process: "YetAnotherMac", pid: 49028,
		exception: "SIGSEGV", signal: "SIGSEGV", crashedThread: 5,
		topModule: "YetAnotherMac", topSymbol: "",
		identifier: "com.YourCompany.YetAnotherMac", osContain: "10.14.0",
	},
}

func TestParseReportFixtures(t *testing.T) {
	entries, err := os.ReadDir(crashReportsDir)
	if err != nil {
		t.Skipf("crash report fixtures not available at %s: %v", crashReportsDir, err)
	}
	seen := 0
	for _, e := range entries {
		name := e.Name()
		t.Run(name, func(t *testing.T) {
			want, ok := fixtureWants[name]
			if !ok {
				t.Fatalf("fixture %s has no hand-written expectation: read it and add one", name)
			}
			seen++
			f, err := os.Open(filepath.Join(crashReportsDir, name))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			r, err := ParseReport(f)
			if err != nil {
				t.Fatalf("ParseReport: %v", err)
			}
			checkReport(t, r, want)
		})
	}
	if seen != len(fixtureWants) {
		t.Errorf("checked %d fixtures, expected %d: a fixture went missing", seen, len(fixtureWants))
	}
}

func checkReport(t *testing.T, r *Report, want reportWant) {
	t.Helper()
	eq := func(field string, got, want any) {
		if got != want {
			t.Errorf("%s = %#v, want %#v", field, got, want)
		}
	}
	eq("Format", r.Format, want.format)
	eq("Process", r.Process, want.process)
	eq("Pid", r.Pid, want.pid)
	eq("ExceptionType", r.ExceptionType, want.exception)
	eq("Signal", r.Signal, want.signal)
	eq("CrashedThread", r.CrashedThread, want.crashedThread)
	if want.identifier != "" {
		eq("Identifier", r.Identifier, want.identifier)
	}
	if !strings.Contains(r.OS, want.osContain) {
		t.Errorf("OS = %q, want it to contain %q", r.OS, want.osContain)
	}
	eq("TerminationNamespace", r.TerminationNamespace, want.terminationNamespace)
	eq("TerminationCode", r.TerminationCode, want.terminationCode)
	top, ok := r.TopFrame()
	if !ok {
		t.Fatalf("no crashed-thread frames; threads: %d", len(r.Threads))
	}
	eq("top.Module", top.Module, want.topModule)
	eq("top.Function", top.Function, want.topSymbol)
	eq("top.File", top.File, want.topFile)
	eq("top.Line", top.Line, want.topLine)
	if top.Address == 0 {
		t.Errorf("top frame has no address: %+v", top)
	}
	if want.asiContains != "" && !strings.Contains(strings.Join(r.ASI, "\n"), want.asiContains) {
		t.Errorf("ASI = %q, want a message containing %q", r.ASI, want.asiContains)
	}
	if want.asiContains == "" && len(r.ASI) != 0 {
		t.Errorf("ASI = %q, want none", r.ASI)
	}
	var lastTop string
	if len(r.LastExceptionBacktrace) > 0 {
		lastTop = r.LastExceptionBacktrace[0].Function
	}
	eq("LastExceptionBacktrace[0].Function", lastTop, want.lastExceptionTop)

	sum := r.Summary()
	firstLine, _, _ := strings.Cut(sum, "\n")
	if !strings.Contains(firstLine, want.process) || !strings.Contains(firstLine, want.signal) {
		t.Errorf("Summary first line %q should name the process and signal", firstLine)
	}
	if want.topSymbol != "" && !strings.Contains(sum, want.topSymbol) {
		t.Errorf("Summary does not show the top frame %q:\n%s", want.topSymbol, sum)
	}
}

// TestParseReportsConcatenated: two .ips reports in one file are both read,
// and a non-crash report in between is skipped.
func TestParseReportsConcatenated(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(crashReportsDir, "llvm_lldb_asi_nsexception.ips"))
	if err != nil {
		t.Skipf("crash report fixtures not available at %s: %v", crashReportsDir, err)
	}
	hang := `{"bug_type":"288","name":"spin"}` + "\n" + `{"procName":"spin","pid":1}` + "\n"
	all := string(data) + "\n" + hang + strings.Replace(string(data), `"pid" : 96535`, `"pid" : 7`, 1)
	reps, err := ParseReports(strings.NewReader(all))
	if err != nil {
		t.Fatal(err)
	}
	if len(reps) != 2 || reps[0].Pid != 96535 || reps[1].Pid != 7 {
		t.Fatalf("got %d reports, want pids 96535 and 7", len(reps))
	}
}

const legacyTextBody = `Incident Identifier: 11111111-2222-3333-4444-555555555555
Hardware Model:      iPhone10,3
Process:             Demo [123]
Path:                /private/var/containers/Bundle/Application/X/Demo.app/Demo
Identifier:          com.example.Demo
Version:             1.2 (7)
Code Type:           ARM-64 (Native)
OS Version:          iPhone OS 14.4 (18D52)

Exception Type:  EXC_BAD_ACCESS (SIGSEGV)
Exception Subtype: KERN_INVALID_ADDRESS at 0x0000000000000010
Termination Signal: Segmentation fault: 11
Termination Reason: Namespace SIGNAL, Code 0xb
Triggered by Thread:  0

Last Exception Backtrace:
(0x1a0 0x1b0 0x1c0)

Thread 0 name:  Dispatch queue: com.apple.main-thread
Thread 0 Crashed:
0   Demo                          	0x0000000100f1c5a4 -[Crasher crash] + 20 (Crasher.m:42)
1   Demo                          	0x0000000100f1c60c main + 76 (main.m:9)

Thread 1:
0   libsystem_pthread.dylib       	0x00000001e5a0a764 start_wqthread + 0
`

func TestParseReportLegacyVariants(t *testing.T) {
	header := `{"bug_type":"109","os_version":"iPhone OS 14.4 (18D52)","name":"Demo","incident_id":"X"}` + "\n"
	for _, tc := range []struct {
		name, input, format string
	}{
		{"crash text", legacyTextBody, "crash"},
		{"ips with text body", header + legacyTextBody, "ips-legacy"},
		{"CRLF line ends", strings.ReplaceAll(legacyTextBody, "\n", "\r\n"), "crash"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := ParseReport(strings.NewReader(tc.input))
			if err != nil {
				t.Fatal(err)
			}
			top, _ := r.TopFrame()
			if r.Format != tc.format || r.Process != "Demo" || r.Pid != 123 || r.Signal != "SIGSEGV" ||
				r.CrashedThread != 0 || top.Function != "-[Crasher crash]" || top.File != "Crasher.m" || top.Line != 42 || top.Offset != 20 {
				t.Errorf("got format %q process %q pid %d signal %q thread %d top %+v",
					r.Format, r.Process, r.Pid, r.Signal, r.CrashedThread, top)
			}
			if q := r.Crashed().Queue; q != "com.apple.main-thread" {
				t.Errorf("crashed thread queue %q", q)
			}
			if r.ExceptionCodes != "KERN_INVALID_ADDRESS at 0x0000000000000010" || r.TerminationCode != "0xb" {
				t.Errorf("codes %q termination code %q", r.ExceptionCodes, r.TerminationCode)
			}
			if len(r.LastExceptionBacktrace) != 3 || r.LastExceptionBacktrace[2].Address != 0x1c0 {
				t.Errorf("last exception backtrace = %+v", r.LastExceptionBacktrace)
			}
		})
	}
}

func TestParseReportHostile(t *testing.T) {
	validHeader := `{"bug_type":"309","name":"x"}`
	for _, tc := range []struct {
		input    string
		want     error
		wantText string // substring of the error, locating the problem
	}{
		{"", ErrEmpty, ""},
		{"   \n\t\n", ErrEmpty, ""},
		{"hello world\n", ErrUnrecognizedFormat, ""},
		{"\x7fELF\x02\x01\x01\x00", ErrUnrecognizedFormat, ""},
		{"{", ErrTruncated, "header"},
		{`{"bug_type":"309"`, ErrTruncated, "header"},
		{validHeader, ErrTruncated, "no report body"},
		{validHeader + "\n", ErrTruncated, "no report body"},
		{validHeader + "\n{\n  \"procName\" : \"x\",\n  \"threads\" : [", ErrTruncated, "JSON report body"},
		{validHeader + "\n{\n  \"procName\" : \"x\",\n  \"pid\" : ,\n}", ErrCorrupt, "line 4"},
		{validHeader + "\n{\"procName\": \"x\", \"pid\": \"nine\", \"threads\": []}", ErrCorrupt, `"pid"`},
		{`{"bug_type":309 "name":"x"}` + "\n{}", ErrCorrupt, "line 1"},
		{validHeader + "\n{\"procName\":\"x\"}", ErrNotCrashReport, ""},
		{validHeader + "\nsome text that is not a report\n", ErrNotCrashReport, ""},
		{"Process: X [1]\nCrashed Thread: 3\nException Type: EXC_CRASH (SIGABRT)\n\nThread 0:\n0 libc 0x1 f + 1\n", ErrTruncated, "crashed thread 3"},
		{"Process: X [1]\nCrashed Thread: 0\nException Type: EXC_CRASH (SIGABRT)\n", ErrTruncated, "before any"},
		{"Process: X [1]\nThread 0 Crashed:\n0   libc\n", ErrCorrupt, "line 3"},
		{"Process: X [1]\nThread 0 Crashed:\n0   libc 0xZZ f\n", ErrCorrupt, "line 3"},
		{"Process: X [1]\nThread 0 Crashed:\n0   libc 0x1ffffffffffffffff f + 1\n", ErrCorrupt, "address"},
	} {
		name := tc.input
		if len(name) > 40 {
			name = name[:40]
		}
		t.Run(name, func(t *testing.T) {
			r, err := ParseReport(strings.NewReader(tc.input))
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v (report %+v), want %v", err, r, tc.want)
			}
			if !strings.Contains(err.Error(), tc.wantText) {
				t.Errorf("err = %q, want it to mention %q", err, tc.wantText)
			}
		})
	}
}

// TestParseReportTruncatedFixtures cuts every .ips fixture at many points:
// each cut must give a clear error or a report, never a panic or a report
// with a crashed thread that lost its frames silently.
func TestParseReportTruncatedFixtures(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(crashReportsDir, "*.ips"))
	if len(files) == 0 {
		t.Skipf("crash report fixtures not available at %s", crashReportsDir)
	}
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for cut := 1; cut < len(data)-2; cut += len(data)/97 + 1 {
			_, err := ParseReport(strings.NewReader(string(data[:cut])))
			if err == nil {
				t.Errorf("%s cut at %d: parsed without error", filepath.Base(path), cut)
				continue
			}
			if !errors.Is(err, ErrTruncated) && !errors.Is(err, ErrCorrupt) {
				t.Errorf("%s cut at %d: err = %v, want ErrTruncated or ErrCorrupt", filepath.Base(path), cut, err)
			}
		}
	}
}
