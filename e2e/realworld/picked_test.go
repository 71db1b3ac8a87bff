package realworld

// The cells of the projects scripts/corpus-pick.sh chose (docs/VERDICTS.md,
// "How the corpus is chosen"), each with fault sites of its own: an anchor
// in a library function one test calls, and one in a test file.

// Anchors.
const (
	isattyLib    = "func IsCygwinTerminal(fd uintptr) bool {\n" // only TestCygwinPipeName calls it before the example
	isattyTest   = "func TestCygwinPipeName(t *testing.T) {\n"
	strftimeLib  = "func Parse(fmt, value string) (time.Time, error) {\n" // TestParse calls it first
	strftimeTest = "func TestParse(t *testing.T) {\n"
	matchesTest  = "fn assert_matches_works() {\n    let foo = Some(\"-12\");\n"                             // lib.rs: the crate is macros, its tests beside them
	urdfLib      = "bool parseMaterial(Material &material, TiXmlElement *config, bool only_name_is_ok)\n{\n" // only parse_color_doubles parses a material
	urdfTest     = "TEST(URDF_UNIT_TEST, parse_color_doubles)\n{\n"
	coordgenLib  = "vertexCoords Polyomino::coordinatesOfSubstituent(const vertexCoords pos) const\n{\n" // only testPolyominoCoordinatesOfSubstituent calls it
	coordgenTest = "BOOST_AUTO_TEST_CASE(testPolyominoCoordinatesOfSubstituent)\n{\n"
	ngtcp2Lib    = "int ngtcp2_range_not_after(const ngtcp2_range *a, const ngtcp2_range *b) {\n" // only the range_not_after test calls it
	ngtcp2Test   = "void test_ngtcp2_range_not_after(void) {\n  ngtcp2_range a, b;\n"
	riemannLib   = "int\nriemann_attribute_set_key (riemann_attribute_t *attrib, const char *key)\n{\n" // first called by test_riemann_attribute_set
	riemannTest  = "START_TEST (test_riemann_attribute_set)\n{\n  riemann_attribute_t *attrib;\n"
	perlXS       = "pdl_get_destruct_level()\n    CODE:\n" // t/01level0.t calls it first
	perlTest     = "is(Perl::Destruct::Level::get_destruct_level(), 0);\n"
	nssLib       = "static char * determine_homedir (uid_t uid, char *buffer, size_t buflen)\n{\n  char *home;\n"
	nssTest      = ". /usr/share/sharness/sharness.sh\n"
	vcLib        = "vc_new ()\n{\n  vc_component *new_vc = NULL;\n"
	vcTest       = "### Launch the unit tests\n"
	omemoLib     = "int omemo_default_crypto_random_bytes(uint8_t ** buf_pp, size_t buf_len, void * user_data_p) {\n  (void) user_data_p;\n" // test_random_bytes calls it first
	omemoTest    = "void test_aes_gcm_encrypt_decrypt(void ** state) {\n  (void) state;\n"
)

// asanEnvCXX is asanEnv for C++ sources.
var asanEnvCXX = map[string]any{"env": map[string]any{
	"CFLAGS": "-g -O0 -fsanitize=address -fno-omit-frame-pointer", "CXXFLAGS": "-g -O0 -fsanitize=address -fno-omit-frame-pointer",
	"LDFLAGS": "-fsanitize=address",
}}

// plainGo runs go test without -json: its plain text is what triage and
// triage filter read (go-text).
var plainGo = map[string]any{"command": []string{"go", "test", "."}}

var pickedCells = []Cell{
	// Go: github.com/mattn/go-isatty (the rule's smallest module of go.mod with tests)
	{Project: "isatty", Fault: "Go panic", Class: Crashed, Test: "TestCygwinPipeName", Frame: true,
		Edits: []Edit{{"isatty_tcgets.go", isattyLib, "\tif fd < 1<<20 {\n\t\tpanic(\"injected panic\") // FAULT\n\t}\n"}},
		Keep:  []string{`^panic: injected panic`}},
	{Project: "isatty", Fault: "failing assertion (plain go test)", Class: Failed, Test: "TestCygwinPipeName", Frame: true, CI: true,
		Options: plainGo,
		Edits:   []Edit{{"isatty_others_test.go", isattyTest, "\tt.Errorf(\"injected failure: got %d, want %d\", 1, 2) // FAULT\n"}},
		Keep:    []string{`injected failure`, `--- FAIL: TestCygwinPipeName`}},
	{Project: "isatty", Fault: "Go panic (plain go test)", Class: Crashed, Test: "TestCygwinPipeName", Frame: true,
		Options: plainGo,
		Edits:   []Edit{{"isatty_tcgets.go", isattyLib, "\tif fd < 1<<20 {\n\t\tpanic(\"injected panic\") // FAULT\n\t}\n"}},
		Keep:    []string{`^panic: injected panic`}},
	{Project: "isatty", Fault: "compile error in library", Class: BuildFailed, Frame: true, Build: true,
		Edits: []Edit{{"isatty_tcgets.go", isattyLib, goUndef}},
		Keep:  []string{`isatty_tcgets\.go:\d+:\d+: `}},

	// Go: github.com/ncruces/go-strftime
	{Project: "strftime", Fault: "failing assertion", Class: Failed, Test: "TestParse", Frame: true,
		Edits: []Edit{{"strftime_test.go", strftimeTest, "\tt.Errorf(\"injected failure: got %d, want %d\", 1, 2) // FAULT\n"}},
		Keep:  []string{`injected failure`, `--- FAIL: TestParse`}},
	{Project: "strftime", Fault: "nil-map write", Class: Crashed, Test: "TestParse", Frame: true,
		Edits: []Edit{{"strftime.go", strftimeLib, "\tvar injected map[string]int\n\tinjected[fmt] = 1 // FAULT\n"}},
		Keep:  []string{`^panic: assignment to entry in nil map`}},
	{Project: "strftime", Fault: "syscall.Exit(0) (plain go test -v)", Class: Failed, Test: "TestParse",
		Options: map[string]any{"command": []string{"go", "test", "-v", "."}},
		Edits: []Edit{
			{"strftime.go", "import (\n", "\t\"syscall\"\n"},
			{"strftime.go", strftimeLib, "\tsyscall.Exit(0) // FAULT\n"}}},
	// Without -v, go test prints "ok" and exits 0 when a test ends the
	// binary with exit status 0: the log alone reads as a pass.
	{Project: "strftime", Fault: "syscall.Exit(0) (plain go test)", Class: Failed, FilterClass: Passed, Test: "TestParse",
		Known:   "test: passed: a go test command without -v or -json prints only `ok` and exits 0 when a test calls exit(0), so nothing in its output tells; a command the caller gives is run as given (explicit arguments win), and the answer's note says that -v or -json is needed for proof; triage's own plan uses -json, which catches it (the uuid and xxhash syscall.Exit(0) rows)",
		Options: plainGo,
		Edits: []Edit{
			{"strftime.go", "import (\n", "\t\"syscall\"\n"},
			{"strftime.go", strftimeLib, "\tsyscall.Exit(0) // FAULT\n"}}},
	{Project: "strftime", Fault: "infinite loop", Class: TimedOut, Test: "TestParse",
		Options: map[string]any{"timeout_s": 20},
		Edits:   []Edit{{"strftime.go", strftimeLib, "\tfor injected := true; injected; { // FAULT\n\t}\n"}}},

	// Rust: matches (the rule's smallest crate with no crate dependency and five tests)
	{Project: "matches", Fault: "failing assertion", Class: Failed, Test: "assert_matches_works", Frame: true,
		Edits: []Edit{{"lib.rs", matchesTest, "    assert_eq!(1 + 1, 3, \"injected\"); // FAULT\n"}},
		Keep:  []string{`panicked at`, `assertion .*failed`}},
	{Project: "matches", Fault: "process::abort", Class: Crashed, Test: "assert_matches_works", Frame: true, Core: true,
		Edits: []Edit{{"lib.rs", matchesTest, "    if foo.is_some() {\n        std::process::abort(); // FAULT\n    }\n"}},
		Keep:  []string{`process didn't exit successfully`}},
	{Project: "matches", Fault: "process::exit(0)", Class: Failed, Test: "assert_matches_works",
		Edits: []Edit{{"lib.rs", matchesTest, "    if foo.is_some() {\n        std::process::exit(0); // FAULT\n    }\n"}}},
	{Project: "matches", Fault: "compile error in test file", Class: BuildFailed, Frame: true,
		Edits: []Edit{{"tests/macro_use_one.rs", "fn matches_works() {\n", rsUndef}},
		Keep:  []string{`^error\[E\d+\]: `, `--> tests/macro_use_one\.rs:{line}:`}},

	// C++, CMake + CTest (GoogleTest): urdfdom. CTest runs each test
	// program twice (urdf_unit_test and urdf_unit_test_locale).
	{Project: "urdfdom", Fault: "failing assertion", Class: Failed, Test: "parse_color_doubles", Frame: true,
		Edits: []Edit{{"urdf_parser/test/urdf_unit_test.cpp", urdfTest, "  EXPECT_EQ(1, 2) << \"injected\"; /* FAULT */\n"}},
		Keep:  []string{`\[  FAILED  \] URDF_UNIT_TEST\.parse_color_doubles`, `\*\*\*Failed`}},
	{Project: "urdfdom", Fault: "SIGSEGV in library", Class: Crashed, Test: "parse_color_doubles", Frame: true, Core: true,
		Edits: []Edit{{"urdf_parser/src/link.cpp", urdfLib, cSegv}}, Keep: []string{`\*\*\*Exception`}},
	{Project: "urdfdom", Fault: "abort", Class: Crashed, Test: "parse_color_doubles", Frame: true, Core: true,
		Edits: []Edit{{"urdf_parser/src/link.cpp", urdfLib, cAbort}}, Keep: []string{`\*\*\*Exception`}},
	{Project: "urdfdom", Fault: "exit(0)", Class: Failed, Test: "parse_color_doubles",
		Edits: []Edit{{"urdf_parser/src/link.cpp", urdfLib, cExit0}}},
	{Project: "urdfdom", Fault: "compile error in library", Class: BuildFailed, Frame: true, Build: true,
		Edits: []Edit{{"urdf_parser/src/link.cpp", urdfLib, cUndef}}, Keep: []string{`link\.cpp:\d+:\d+: error`}},
	{Project: "urdfdom", Fault: "compile error in test file", Class: BuildFailed, Frame: true,
		Edits: []Edit{{"urdf_parser/test/urdf_unit_test.cpp", urdfTest, cUndef}}, Keep: []string{`urdf_unit_test\.cpp:\d+:\d+: error`}},
	{Project: "urdfdom", Fault: "ASan report", Class: Crashed, Test: "parse_color_doubles", Frame: true, Options: asanEnvCXX,
		Edits: []Edit{{"urdf_parser/src/link.cpp", urdfLib, cAsan}},
		Keep:  []string{`ERROR: AddressSanitizer`, `SUMMARY: AddressSanitizer`}},

	// C++, CMake + CTest (Boost.Test): schroedinger-coordgenlibs. Boost.Test
	// catches a fatal signal itself, reports it against the test case and
	// goes on: no core. Its CMake runs test_coordgen twice (test_coordgen
	// and test_smilesparser).
	{Project: "coordgen", Fault: "failing assertion", Class: Failed, Test: "testPolyominoCoordinatesOfSubstituent", Frame: true,
		Edits: []Edit{{"test/test_coordgen.cpp", coordgenTest, "    BOOST_CHECK_EQUAL(1, 2); /* FAULT */\n"}},
		Keep:  []string{`error: in "testPolyominoCoordinatesOfSubstituent"`, `\*\*\*Failed`}},
	{Project: "coordgen", Fault: "SIGSEGV in library", Class: Crashed, Test: "testPolyominoCoordinatesOfSubstituent",
		Edits: []Edit{{"CoordgenMacrocycleBuilder.cpp", coordgenLib, cSegv}}, Keep: []string{`memory access violation`}},
	{Project: "coordgen", Fault: "compile error in library", Class: BuildFailed, Frame: true, Build: true,
		Edits: []Edit{{"CoordgenMacrocycleBuilder.cpp", coordgenLib, cUndef}}, Keep: []string{`CoordgenMacrocycleBuilder\.cpp:\d+:\d+: error`}},

	// C, autotools + make check (CUnit): ngtcp2; configure without crypto
	// libraries builds and tests the library alone.
	{Project: "ngtcp2", Fault: "failing assertion", Class: Failed, Test: "range_not_after", Frame: true,
		Edits: []Edit{{"tests/ngtcp2_range_test.c", ngtcp2Test, "  CU_ASSERT(1 == 2); /* FAULT */\n"}},
		Keep:  []string{`^FAIL: main`}},
	{Project: "ngtcp2", Fault: "SIGSEGV in library", Class: Crashed, Test: "range_not_after", Frame: true, Core: true,
		Edits: []Edit{{"lib/ngtcp2_range.c", ngtcp2Lib, cSegv}}, Keep: []string{`^FAIL: main`}},
	{Project: "ngtcp2", Fault: "exit(0)", Class: Failed, Test: "range_not_after",
		Edits: []Edit{{"lib/ngtcp2_range.c", ngtcp2Lib, "  exit(0); /* FAULT */\n"}}},
	{Project: "ngtcp2", Fault: "compile error in library", Class: BuildFailed, Frame: true, Build: true,
		Edits: []Edit{{"lib/ngtcp2_range.c", ngtcp2Lib, cUndef}}, Keep: []string{`ngtcp2_range\.c:\d+:\d+: error`}},

	// C, autotools + make check (Check, CK_FORK=no): riemann-c-client
	{Project: "riemann", Fault: "failing assertion", Class: Failed, Test: "test_riemann_attribute_set", Frame: true,
		Edits: []Edit{{"tests/check_attributes.c", riemannTest, "  ck_assert_int_eq (1, 2); /* FAULT */\n"}},
		Keep:  []string{`^FAIL: tests/check_libriemann`}},
	{Project: "riemann", Fault: "SIGSEGV in library", Class: Crashed, Test: "test_riemann_attribute_set", Frame: true, Core: true,
		Edits: []Edit{{"lib/riemann/attribute.c", riemannLib, cSegv}}, Keep: []string{`^FAIL: tests/check_libriemann`}},
	{Project: "riemann", Fault: "exit(0)", Class: Failed, Test: "test_riemann_attribute_set",
		Edits: []Edit{{"lib/riemann/attribute.c", riemannLib, cExit0}}},
	{Project: "riemann", Fault: "compile error in library", Class: BuildFailed, Frame: true, Build: true,
		Edits: []Edit{{"lib/riemann/attribute.c", riemannLib, cUndef}}, Keep: []string{`attribute\.c:\d+:\d+: error`}},

	// Perl XS, perl Makefile.PL + make test (TAP through Test::Harness):
	// libperl-destruct-level-perl. Its C is Level.xs, compiled through
	// xsubpp with #line directives back to it.
	{Project: "perl-destruct-level", Fault: "SIGSEGV in XS", Class: Crashed, Test: "01level0.t", Frame: true, Core: true,
		Edits: []Edit{{"Level.xs", perlXS, "\t{ volatile int *injected_null = NULL; *injected_null = 1; } /* FAULT */\n"}},
		Keep:  []string{`^t/01level0\.t \(Wstat: \d+`, `Non-zero wait status: \d+`}},
	{Project: "perl-destruct-level", Fault: "failing assertion", Class: Failed, Test: "01level0.t", Frame: true,
		Edits: []Edit{{"t/01level0.t", perlTest, "is(1, 2, 'injected'); # /* FAULT */\n"}},
		Keep:  []string{`Failed test 'injected'`}},
	{Project: "perl-destruct-level", Fault: "exit(0) in XS", Class: Failed, Test: "01level0.t",
		Edits: []Edit{{"Level.xs", perlXS, "\texit(0); /* FAULT */\n"}}},
	{Project: "perl-destruct-level", Fault: "compile error in XS", Class: BuildFailed, Frame: true, Build: true,
		Edits: []Edit{{"Level.xs", perlXS, "\tinjected_undeclared_identifier = 1; /* FAULT */\n"}}, Keep: []string{`Level\.xs:\d+:\d+: error`}},

	// C, meson (its one test a sharness script, TAP on its output; the
	// library is loaded into getent through nss_wrapper): libnss-unknown
	{Project: "nss-unknown", Fault: "failing assertion", Class: Failed, Test: "Resolve unknown current user", CI: true,
		Edits: []Edit{{"tests/resolve-unknown-current-user.t", nssTest, "test_expect_success 'injected failure' 'test 1 = 2' # /* FAULT */\n"}},
		Keep:  []string{`not ok \d+ - injected failure`}},
	// meson test's own 30 s timeout ends the test first (its result
	// TIMEOUT), which the raw log shows too.
	{Project: "nss-unknown", Fault: "infinite loop in library", Class: TimedOut, FilterClass: TimedOut, Test: "Resolve unknown current user",
		Options: map[string]any{"timeout_s": 90},
		Edits:   []Edit{{"src/nss-unknown.c", nssLib, cLoop}}},
	{Project: "nss-unknown", Fault: "exit 0 mid-script", Class: Failed, Test: "Resolve unknown current user",
		Edits: []Edit{{"tests/resolve-unknown-current-user.t", "  'test -n \"$entry\"'\n", "exit 0 # /* FAULT */\n"}}},
	{Project: "nss-unknown", Fault: "compile error in library", Class: BuildFailed, Frame: true, Build: true,
		Edits: []Edit{{"src/nss-unknown.c", nssLib, cUndef}}, Keep: []string{`nss-unknown\.c:\d+:\d+: error`}},

	// C, autotools + make check (a shunit2 script that compiles and runs
	// programs against the library): libvc
	{Project: "libvc", Fault: "failing assertion", Class: Failed, Test: "run-tests", CI: true,
		Edits: []Edit{{"test/run-tests", vcTest, "test_injected() { assertEquals 'injected' 1 2; } # /* FAULT */\n"}},
		Keep:  []string{`^FAIL: run-tests`}},
	{Project: "libvc", Fault: "SIGSEGV in library", Class: Crashed, Test: "run-tests",
		Edits: []Edit{{"src/vc.c", vcLib, cSegv}}, Keep: []string{`^FAIL: run-tests`}},
	{Project: "libvc", Fault: "compile error in library", Class: BuildFailed, Frame: true, Build: true,
		Edits: []Edit{{"src/vc.c", vcLib, cUndef}}, Keep: []string{`vc\.c:\d+:\d+: error`}},

	// C, CMake + CTest (cmocka): libomemo. cmocka catches a fatal signal
	// itself, reports it against the test and goes on: no core.
	{Project: "libomemo", Fault: "failing assertion", Class: Failed, Test: "test_aes_gcm_encrypt_decrypt", Frame: true,
		Edits: []Edit{{"test/test_crypto.c", omemoTest, "  assert_int_equal(1, 2); /* FAULT */\n"}},
		Keep:  []string{`\[  FAILED  \] test_aes_gcm_encrypt_decrypt`, `\*\*\*Failed`}},
	{Project: "libomemo", Fault: "SIGSEGV in library", Class: Crashed, Test: "test_random_bytes",
		Edits: []Edit{{"src/libomemo_crypto.c", omemoLib, cSegv}}, Keep: []string{`Segmentation fault`}},
	{Project: "libomemo", Fault: "exit(0)", Class: Failed, Test: "test_random_bytes",
		Edits: []Edit{{"src/libomemo_crypto.c", omemoLib, cExit0}}},
	{Project: "libomemo", Fault: "compile error in library", Class: BuildFailed, Frame: true, Build: true,
		Edits: []Edit{{"src/libomemo_crypto.c", omemoLib, cUndef}}, Keep: []string{`libomemo_crypto\.c:\d+:\d+: error`}},
}
