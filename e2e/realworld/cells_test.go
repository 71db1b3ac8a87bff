package realworld

// Class is a verdict class: what a run truly was.
type Class string

const (
	Passed      Class = "passed"
	Failed      Class = "failed"
	Crashed     Class = "crashed"
	TimedOut    Class = "timed out"
	BuildFailed Class = "build failed"
)

// Edit inserts Insert right after Anchor, which must occur exactly once in
// File. The inserted line carrying the word FAULT is the fault's line: the
// file:line the verdict must point at when Cell.Frame is set.
type Edit struct {
	File, Anchor, Insert string
}

// Cell is one fault injected into one project, with the truth about it.
type Cell struct {
	Project string
	Fault   string
	Edits   []Edit
	Class   Class
	// FilterClass is what the raw log alone shows, when it shows less than
	// the run did; a timed-out run's log reads as failed (a test unfinished),
	// unless the runner's own limit ended the test: set it to TimedOut then.
	FilterClass Class
	Test        string         // the test that was running; "" when the runner names none
	Frame       bool           // the verdict points at the FAULT line (first project frame, or the compiler's location)
	Core        bool           // a core is dumped: triage finds it and dump_open opens it with the hinted arguments
	Keep        []string       // regexps ({line} is the FAULT line): every raw-log line matching one survives triage filter
	Options     map[string]any // more arguments of triage's test call (timeout_s, args, env)
	Build       bool           // also judged through triage call build
	CI          bool           // in the default `go test` subset: one cell per runner (docs/VERDICTS.md)
	Known       string         // what triage answers today, while a fix is pending
}

// Name is the subtest name.
func (c Cell) Name() string { return c.Project + "/" + c.Fault }

// Faults repeated across projects.
const (
	cSegv   = "    { volatile int *injected_null = NULL; *injected_null = 1; } /* FAULT */\n"
	cAbort  = "    abort(); /* FAULT */\n"
	cLoop   = "    { volatile int injected_spin = 1; while (injected_spin) { } } /* FAULT */\n"
	cExit0  = "    exit(0); /* FAULT */\n"
	cAsan   = "    { volatile size_t injected_i = 8; char *injected = (char *) malloc(8); injected[injected_i] = 1; free(injected); } /* FAULT */\n"
	cUndef  = "    injected_undeclared_identifier = 1; /* FAULT */\n"
	goUndef = "\tvar injected int = \"not an int\" // FAULT\n\t_ = injected\n"
	rsUndef = "        let injected: u32 = \"not a number\"; // FAULT\n"
)

var asanEnv = map[string]any{"env": map[string]any{
	"CFLAGS": "-g -O0 -fsanitize=address -fno-omit-frame-pointer", "LDFLAGS": "-fsanitize=address",
}}

// Anchors.
const (
	cjsonLib   = "    cJSON *bool_item = cJSON_CreateBool(boolean);\n" // cJSON_AddBoolToObject: only the cjson_add test calls it
	cjsonTest  = "static void parse_number_should_parse_zero(void)\n{\n"
	zlibLib    = "const char * ZEXPORT zlibVersion()\n{\n"
	yamlLib    = "yaml_get_version(int *major, int *minor, int *patch)\n{\n"
	yamlTest   = "    yaml_get_version(&major, &minor, &patch);\n"
	semverLib  = "impl Default for VersionReq {\n    fn default() -> Self {\n" // only test_default calls it
	semverTest = "fn test_default() {\n"
	uuidTest   = "func TestUUID(t *testing.T) {\n"
	errgroupGo = "func (g *Group) Go(f func() error) {\n\tif g.sem != nil {\n\t\tg.sem <- token{}\n\t}\n\n\tg.wg.Add(1)\n\tgo func() {\n"
)

var cells = []Cell{
	// Go: github.com/google/uuid
	{Project: "uuid", Fault: "failing assertion", Class: Failed, Test: "TestUUID", Frame: true,
		Edits: []Edit{{"uuid_test.go", uuidTest, "\tt.Errorf(\"injected failure: got %d, want %d\", 1, 2) // FAULT\n"}},
		Keep:  []string{`injected failure`, `--- FAIL: TestUUID`}},
	{Project: "uuid", Fault: "Go panic", Class: Crashed, Test: "TestNullUUIDValue", Frame: true, CI: true,
		Edits: []Edit{{"uuid.go", "func MustParse(s string) UUID {\n", "\tif len(s) > 0 {\n\t\tpanic(\"injected panic\") // FAULT\n\t}\n"}},
		Keep:  []string{`^panic: injected panic`}},
	{Project: "uuid", Fault: "nil-map write", Class: Crashed, Test: "TestNullUUIDValue", Frame: true,
		Edits: []Edit{{"uuid.go", "func (uuid UUID) String() string {\n", "\tvar injected map[string]int\n\tinjected[\"x\"] = 1 // FAULT\n"}},
		Keep:  []string{`^panic: assignment to entry in nil map`}},
	{Project: "uuid", Fault: "goroutine panic", Class: Crashed, Test: "TestNullUUIDValue", Frame: true,
		Edits: []Edit{{"uuid.go", "func (uuid UUID) String() string {\n", "\tinjectedDone := make(chan bool)\n\tgo func() {\n\t\tpanic(\"injected goroutine panic\") // FAULT\n\t}()\n\t<-injectedDone\n"}},
		Keep:  []string{`^panic: injected goroutine panic`}},
	{Project: "uuid", Fault: "infinite loop", Class: TimedOut, Test: "TestUUID", Frame: false,
		Options: map[string]any{"timeout_s": 20},
		Edits:   []Edit{{"uuid_test.go", uuidTest, "\tfor injected := true; injected; { // FAULT\n\t}\n"}}},
	{Project: "uuid", Fault: "syscall.Exit(0)", Class: Failed, Test: "TestUUID",
		Edits: []Edit{
			{"uuid_test.go", "import (\n", "\t\"syscall\"\n"},
			{"uuid_test.go", uuidTest, "\tsyscall.Exit(0) // FAULT\n"}}},
	{Project: "uuid", Fault: "compile error in library", Class: BuildFailed, Frame: true, Build: true,
		Edits: []Edit{{"uuid.go", "func (uuid UUID) String() string {\n", goUndef}},
		Keep:  []string{`uuid\.go:\d+:\d+: `}},
	{Project: "uuid", Fault: "compile error in test file", Class: BuildFailed, Frame: true,
		Edits: []Edit{{"uuid_test.go", uuidTest, goUndef}},
		Keep:  []string{`uuid_test\.go:\d+:\d+: `}},

	// Go: github.com/BurntSushi/toml
	{Project: "toml", Fault: "Go panic", Class: Crashed, Test: "TestDecodeReader", Frame: true,
		Edits: []Edit{{"decode.go", "func NewDecoder(r io.Reader) *Decoder {\n", "\tpanic(\"injected panic\") // FAULT\n"}},
		Keep:  []string{`^panic: injected panic`}},
	{Project: "toml", Fault: "failing assertion", Class: Failed, Test: "TestDecodeFile", Frame: true,
		Edits: []Edit{{"decode_test.go", "func TestDecodeFile(t *testing.T) {\n", "\tt.Fatalf(\"injected failure\") // FAULT\n"}},
		Keep:  []string{`injected failure`, `--- FAIL: TestDecodeFile`}},

	// Go: golang.org/x/sync (errgroup), under -race
	{Project: "xsync", Fault: "data race (-race)", Class: Failed, Test: "TestWithContext", Frame: true,
		Options: map[string]any{"args": []string{"-race"}},
		Edits: []Edit{
			{"errgroup/errgroup.go", errgroupGo, "\t\tinjectedCount++ // FAULT\n"},
			{"errgroup/errgroup.go", "type token struct{}\n", "\nvar injectedCount int\n"}},
		Keep: []string{`WARNING: DATA RACE`, `race detected during execution of test`}},
	{Project: "xsync", Fault: "goroutine panic", Class: Crashed, Test: "TestZeroGroup", Frame: true,
		Edits: []Edit{{"errgroup/errgroup.go", errgroupGo, "\t\tpanic(\"injected goroutine panic\") // FAULT\n"}},
		Keep:  []string{`^panic: injected goroutine panic`}},

	// Go: github.com/cespare/xxhash/v2
	{Project: "xxhash", Fault: "nil-map write", Class: Crashed, Test: "TestReset", Frame: true,
		Edits: []Edit{{"xxhash.go", "func (d *Digest) Reset() {\n", "\tvar injected map[int]int\n\tinjected[0] = 1 // FAULT\n"}},
		Keep:  []string{`^panic: assignment to entry in nil map`}},
	{Project: "xxhash", Fault: "syscall.Exit(0)", Class: Failed, Test: "TestReset",
		Edits: []Edit{
			{"xxhash.go", "import (\n", "\t\"syscall\"\n"},
			{"xxhash.go", "func (d *Digest) Reset() {\n", "\tsyscall.Exit(0) // FAULT\n"}}},

	// C, CMake + CTest (Unity): cjson
	{Project: "cjson", Fault: "failing assertion", Class: Failed, Test: "parse_number", Frame: true,
		Edits: []Edit{{"tests/parse_number.c", cjsonTest, "    TEST_ASSERT_EQUAL_INT_MESSAGE(1, 2, \"injected\"); /* FAULT */\n"}},
		Keep:  []string{`:FAIL`, `\*\*\*Failed`}},
	{Project: "cjson", Fault: "SIGSEGV in library", Class: Crashed, Test: "cjson_add", Frame: true, Core: true, CI: true,
		Edits: []Edit{{"cJSON.c", cjsonLib, cSegv}}, Keep: []string{`\*\*\*Exception`}},
	{Project: "cjson", Fault: "abort", Class: Crashed, Test: "cjson_add", Frame: true, Core: true,
		Edits: []Edit{{"cJSON.c", cjsonLib, cAbort}}, Keep: []string{`\*\*\*Exception`}},
	{Project: "cjson", Fault: "infinite loop", Class: TimedOut, Test: "cjson_add",
		Options: map[string]any{"timeout_s": 60}, Edits: []Edit{{"cJSON.c", cjsonLib, cLoop}}},
	// CTest judges a test program by its exit status, and its log shows
	// no passing test's output: the raw log alone reads as a pass. call test
	// reads the programs' own output in CTest's JUnit file, where Unity's
	// summary is missing.
	{Project: "cjson", Fault: "exit(0)", Class: Failed, Test: "cjson_add",
		Edits: []Edit{{"cJSON.c", cjsonLib, cExit0}}},
	{Project: "cjson", Fault: "compile error in library", Class: BuildFailed, Frame: true, Build: true,
		Edits: []Edit{{"cJSON.c", cjsonLib, cUndef}}, Keep: []string{`cJSON\.c:\d+:\d+: error`}},
	{Project: "cjson", Fault: "compile error in test file", Class: BuildFailed, Frame: true,
		Edits: []Edit{{"tests/parse_number.c", cjsonTest, cUndef}}, Keep: []string{`parse_number\.c:\d+:\d+: error`}},
	{Project: "cjson", Fault: "ASan report", Class: Crashed, Test: "cjson_add", Frame: true, Options: asanEnv,
		Edits: []Edit{{"cJSON.c", cjsonLib, cAsan}},
		Keep:  []string{`ERROR: AddressSanitizer`, `SUMMARY: AddressSanitizer`}},

	// C, configure + make test: zlib (its tests are programs, not named tests)
	{Project: "zlib", Fault: "SIGSEGV in library", Class: Crashed, Frame: true, Core: true, CI: true,
		Edits: []Edit{{"zutil.c", zlibLib, cSegv}}, Keep: []string{`Segmentation fault`}},
	{Project: "zlib", Fault: "abort", Class: Crashed, Frame: true, Core: true,
		Edits: []Edit{{"zutil.c", zlibLib, cAbort}}, Keep: []string{`Abort`}},
	{Project: "zlib", Fault: "compile error in library", Class: BuildFailed, Frame: true, Build: true,
		Edits: []Edit{{"zutil.c", zlibLib, cUndef}}, Keep: []string{`zutil\.c:\d+:\d+: error`}},

	// C, autotools + make check: libyaml
	// automake keeps each test's own output in tests/NAME.log: the make
	// check log shows "FAIL: test-version" and, for a test killed by a
	// signal, the test-driver shell's "Segmentation fault (core dumped)"
	// line just before it, so a filter can say crashed there; an ASan
	// report stays in the test's log, and the filter can say no more than
	// failed.
	{Project: "libyaml", Fault: "SIGSEGV in library", Class: Crashed, Test: "test-version", Frame: true, Core: true,
		Edits: []Edit{{"src/api.c", yamlLib, cSegv}}, Keep: []string{`^FAIL: test-version`}},
	{Project: "libyaml", Fault: "assert", Class: Crashed, Test: "test-version", Frame: true, Core: true,
		Edits: []Edit{{"tests/test-version.c", yamlTest, "    assert(major == -1); /* FAULT */\n"}},
		Keep:  []string{`^FAIL: test-version`}},
	{Project: "libyaml", Fault: "ASan report", Class: Crashed, Test: "test-version", Frame: true, Options: asanEnv,
		Edits: []Edit{{"src/api.c", yamlLib, cAsan}},
		Keep:  []string{`^FAIL: test-version`}},

	// Rust: semver (Debian's librust-semver-dev)
	{Project: "semver", Fault: "failing assertion", Class: Failed, Test: "test_default", Frame: true,
		Edits: []Edit{{"tests/test_version_req.rs", semverTest, "    assert_eq!(1 + 1, 3, \"injected\"); // FAULT\n"}},
		Keep:  []string{`panicked at`, `assertion .*failed`}},
	{Project: "semver", Fault: "Rust panic", Class: Failed, Test: "test_default", Frame: true, CI: true,
		Edits: []Edit{{"src/lib.rs", semverLib, "        if VersionReq::STAR.comparators.is_empty() {\n            panic!(\"injected panic\"); // FAULT\n        }\n"}},
		Keep:  []string{`panicked at`}},
	// The crashing frame of a stack overflow is the function's entry: its
	// prologue's first stack write hits the guard page (gdb: the innermost
	// injected_deep at its fn line; the recursive call's line is the
	// callers').
	{Project: "semver", Fault: "stack overflow", Known: "filter: now and then names no test: the test program writes Rust's overflow message in pieces and libtest's own output lands between them (a plain shell pipe shows it too), so the log's only line naming the thread can come split; call test names it from the core", Class: Crashed, Test: "test_default", Frame: true, Core: true,
		Edits: []Edit{{"src/lib.rs", semverLib, "        #[inline(never)]\n        fn injected_deep(n: u64) -> u64 { // FAULT\n            let pad = std::hint::black_box([n; 64]);\n            if n == u64::MAX { pad[0] } else { injected_deep(n + 1) + pad[1] }\n        }\n        std::hint::black_box(injected_deep(0));\n"}},
		Keep:  []string{`has overflowed its stack`, `process didn't exit successfully`}},
	{Project: "semver", Fault: "process::abort", Class: Crashed, Test: "test_default", Frame: true, Core: true,
		Edits: []Edit{{"src/lib.rs", semverLib, "        if VersionReq::STAR.comparators.is_empty() {\n            std::process::abort(); // FAULT\n        }\n"}},
		Keep:  []string{`process didn't exit successfully`}},
	{Project: "semver", Fault: "infinite loop", Class: TimedOut, Test: "test_default",
		Options: map[string]any{"timeout_s": 40},
		Edits:   []Edit{{"src/lib.rs", semverLib, "        while std::hint::black_box(true) {} // FAULT\n"}}},
	{Project: "semver", Fault: "process::exit(0)", Class: Failed, Test: "test_default",
		Edits: []Edit{{"src/lib.rs", semverLib, "        if VersionReq::STAR.comparators.is_empty() {\n            std::process::exit(0); // FAULT\n        }\n"}}},
	{Project: "semver", Fault: "compile error in library", Class: BuildFailed, Frame: true, Build: true,
		Edits: []Edit{{"src/lib.rs", semverLib, rsUndef}}, Keep: []string{`^error\[E\d+\]: `, `--> src/lib\.rs:{line}:`}},
	{Project: "semver", Fault: "compile error in test file", Class: BuildFailed, Frame: true,
		Edits: []Edit{{"tests/test_version_req.rs", semverTest, rsUndef}}, Keep: []string{`^error\[E\d+\]: `, `--> tests/test_version_req\.rs:{line}:`}},

	// Rust: strsim
	{Project: "strsim", Fault: "Rust panic", Class: Failed, Test: "hamming_works", Frame: true,
		Edits: []Edit{{"src/lib.rs", "pub fn hamming(a: &str, b: &str) -> HammingResult {\n", "    if a == \"hamming\" {\n        panic!(\"injected panic\"); // FAULT\n    }\n"}},
		Keep:  []string{`panicked at`}},
}
