package realworld

import "maps"

// The team's own projects: for a test framework no packaged project of the
// corpus uses (docs/VERDICTS.md, "How the corpus is chosen": the rule chose
// none for Catch2, doctest and Criterion), a tiny library of our own and its
// tests in that framework, in testdata/own/NAME. Each is the same library
// (bits: gcd, clamp, popcount) built with CMake, its test program one CTest
// test; popcount is called by its popcount test only, the library's fault
// site.
//
// What the frameworks do with a fault: Catch2 and doctest catch a fatal
// signal, report it against the running test case, then raise it again, so
// the program dies of it and dumps a core; Criterion runs each test in a
// process of its own, which dumps the core, and reports the test CRASH!.
// exit(0) in a test ends a Catch2 or doctest program before its summary,
// and a Criterion test's process: to Criterion, a pass.
//
// doctest-own's pristine run and its SIGSEGV cell are in the CI subset: the
// project builds and runs in seconds.

var ownProjects = map[string]Project{
	"catch2-own": {Dir: "catch2", Own: true, Toolchain: "cmake", Tools: []string{"cmake", "ctest", "g++", "gdb"},
		Runner: "CTest, Catch2"},
	"doctest-own": {Dir: "doctest", Own: true, Toolchain: "cmake", Tools: []string{"cmake", "ctest", "g++", "gdb"},
		Runner: "CTest, doctest", CI: true},
	"criterion-own": {Dir: "criterion", Own: true, Toolchain: "cmake", Tools: []string{"cmake", "ctest", "gcc", "gdb"},
		Runner: "CTest, Criterion"},
}

func init() { maps.Copy(projects, ownProjects) }

// Anchors.
const (
	ownLib           = "unsigned popcount(unsigned x)\n{\n" // only the popcount test calls it
	catch2OwnTest    = "TEST_CASE(\"gcd of two numbers\", \"[gcd]\")\n{\n"
	doctestOwnTest   = "TEST_CASE(\"gcd of two numbers\")\n{\n"
	criterionOwnTest = "Test(bits, gcd_of_two_numbers)\n{\n"
)

// The tests the faults hit, by the frameworks' own names.
const (
	ownGcdCase        = "gcd of two numbers"       // Catch2, doctest
	ownPopcountCase   = "popcount counts set bits" // Catch2, doctest
	criterionGcd      = "gcd_of_two_numbers"       // Criterion's bits::gcd_of_two_numbers (its suite aside, as GoogleTest's)
	criterionPopcount = "popcount_counts_set_bits"
)

var ownCells = []Cell{
	// C++, CMake + CTest (Catch2, Debian's v2 and its prebuilt main)
	{Project: "catch2-own", Fault: "failing assertion", Class: Failed, Test: ownGcdCase, Frame: true,
		Edits: []Edit{{"tests/test_bits.cpp", catch2OwnTest, "    CHECK(gcd(12, 18) == 5); /* FAULT */\n"}},
		Keep:  []string{`test_bits\.cpp:{line}: FAILED:`, `\*\*\*Failed`}},
	{Project: "catch2-own", Fault: "SIGSEGV in library", Class: Crashed, Test: ownPopcountCase, Frame: true, Core: true,
		Edits: []Edit{{"src/bits.cpp", ownLib, cSegv}},
		Keep:  []string{`SIGSEGV - Segmentation violation signal`, `\*\*\*Exception`}},
	{Project: "catch2-own", Fault: "abort", Class: Crashed, Test: ownPopcountCase, Frame: true, Core: true,
		Edits: []Edit{{"src/bits.cpp", ownLib, cAbort}},
		Keep:  []string{`SIGABRT - Abort \(abnormal termination\) signal`, `\*\*\*Exception`}},
	{Project: "catch2-own", Fault: "infinite loop in library", Class: TimedOut, Test: ownPopcountCase,
		Options: map[string]any{"timeout_s": 30}, Edits: []Edit{{"src/bits.cpp", ownLib, cLoop}}},
	// Catch2 v2 writes nothing before a failure or its summary: the
	// program is known to be Catch2's from its ELF file, and rerun alone
	// with Catch2's XML reporter to name the case it ended in.
	{Project: "catch2-own", Fault: "exit(0) in library", Class: Failed, Test: ownPopcountCase,
		Edits: []Edit{{"src/bits.cpp", ownLib, cExit0}}},
	{Project: "catch2-own", Fault: "compile error in library", Class: BuildFailed, Frame: true, Build: true,
		Edits: []Edit{{"src/bits.cpp", ownLib, cUndef}}, Keep: []string{`bits\.cpp:{line}:\d+: error`}},
	{Project: "catch2-own", Fault: "compile error in test file", Class: BuildFailed, Frame: true,
		Edits: []Edit{{"tests/test_bits.cpp", catch2OwnTest, cUndef}}, Keep: []string{`test_bits\.cpp:{line}:\d+: error`}},
	{Project: "catch2-own", Fault: "ASan report", Class: Crashed, Test: ownPopcountCase, Frame: true, Options: asanEnvCXX,
		Edits: []Edit{{"src/bits.cpp", ownLib, cAsan}},
		Keep:  []string{`ERROR: AddressSanitizer`, `SUMMARY: AddressSanitizer`}},

	// C++, CMake + CTest (doctest)
	{Project: "doctest-own", Fault: "failing assertion", Class: Failed, Test: ownGcdCase, Frame: true,
		Edits: []Edit{{"tests/test_bits.cpp", doctestOwnTest, "    CHECK(gcd(12, 18) == 5); /* FAULT */\n"}},
		Keep:  []string{`test_bits\.cpp:{line}: ERROR: CHECK\(`, `\*\*\*Failed`}},
	{Project: "doctest-own", Fault: "SIGSEGV in library", Class: Crashed, Test: ownPopcountCase, Frame: true, Core: true, CI: true,
		Edits: []Edit{{"src/bits.cpp", ownLib, cSegv}},
		Keep:  []string{`test case CRASHED: SIGSEGV`, `\*\*\*Exception`}},
	{Project: "doctest-own", Fault: "abort", Class: Crashed, Test: ownPopcountCase, Frame: true, Core: true,
		Edits: []Edit{{"src/bits.cpp", ownLib, cAbort}},
		Keep:  []string{`test case CRASHED: SIGABRT`, `\*\*\*Exception`}},
	{Project: "doctest-own", Fault: "infinite loop in library", Class: TimedOut, Test: ownPopcountCase,
		Options: map[string]any{"timeout_s": 30}, Edits: []Edit{{"src/bits.cpp", ownLib, cLoop}}},
	{Project: "doctest-own", Fault: "exit(0) in library", Class: Failed, Test: ownPopcountCase,
		Edits: []Edit{{"src/bits.cpp", ownLib, cExit0}}},
	{Project: "doctest-own", Fault: "compile error in library", Class: BuildFailed, Frame: true, Build: true,
		Edits: []Edit{{"src/bits.cpp", ownLib, cUndef}}, Keep: []string{`bits\.cpp:{line}:\d+: error`}},
	{Project: "doctest-own", Fault: "compile error in test file", Class: BuildFailed, Frame: true,
		Edits: []Edit{{"tests/test_bits.cpp", doctestOwnTest, cUndef}}, Keep: []string{`test_bits\.cpp:{line}:\d+: error`}},
	{Project: "doctest-own", Fault: "ASan report", Class: Crashed, Test: ownPopcountCase, Frame: true, Options: asanEnvCXX,
		Edits: []Edit{{"src/bits.cpp", ownLib, cAsan}},
		Keep:  []string{`ERROR: AddressSanitizer`, `SUMMARY: AddressSanitizer`}},

	// C, CMake + CTest (Criterion: each test in a process of its own)
	{Project: "criterion-own", Fault: "failing assertion", Class: Failed, Test: criterionGcd, Frame: true,
		Edits: []Edit{{"tests/test_bits.c", criterionOwnTest, "    cr_expect_eq(gcd(12, 18), 5); /* FAULT */\n"}},
		Keep:  []string{`test_bits\.c:{line}: Assertion Failed`, `^\[FAIL\] bits::gcd_of_two_numbers`}},
	{Project: "criterion-own", Fault: "SIGSEGV in library", Class: Crashed, Test: criterionPopcount, Frame: true, Core: true,
		Edits: []Edit{{"src/bits.c", ownLib, cSegv}},
		Keep:  []string{`Unexpected signal caught below this line`, `^\[FAIL\] bits::popcount_counts_set_bits: CRASH!`}},
	{Project: "criterion-own", Fault: "abort", Class: Crashed, Test: criterionPopcount, Frame: true, Core: true,
		Edits: []Edit{{"src/bits.c", ownLib, cAbort}},
		Keep:  []string{`Unexpected signal caught below this line`, `^\[FAIL\] bits::popcount_counts_set_bits: CRASH!`}},
	{Project: "criterion-own", Fault: "infinite loop in library", Class: TimedOut, Test: criterionPopcount,
		Options: map[string]any{"timeout_s": 30}, Edits: []Edit{{"src/bits.c", ownLib, cLoop}}},
	// A Criterion test that exits 0 is a pass to Criterion: the log alone
	// reads as one.
	{Project: "criterion-own", Fault: "exit(0) in library", Class: Failed, FilterClass: Passed, Test: criterionPopcount,
		Known: "test: passed: a Criterion test runs in a process of its own, and Criterion counts one that exits 0 as passing (`Synthesis: Tested: 3 | Passing: 3`), " +
			"its runner exiting 0; nothing in the run's output or exit status tells",
		Edits: []Edit{{"src/bits.c", ownLib, cExit0}}},
	{Project: "criterion-own", Fault: "compile error in library", Class: BuildFailed, Frame: true, Build: true,
		Edits: []Edit{{"src/bits.c", ownLib, cUndef}}, Keep: []string{`bits\.c:{line}:\d+: error`}},
	{Project: "criterion-own", Fault: "compile error in test file", Class: BuildFailed, Frame: true,
		Edits: []Edit{{"tests/test_bits.c", criterionOwnTest, cUndef}}, Keep: []string{`test_bits\.c:{line}:\d+: error`}},
	{Project: "criterion-own", Fault: "ASan report", Class: Crashed, Test: criterionPopcount, Frame: true, Options: asanEnv,
		Edits: []Edit{{"src/bits.c", ownLib, cAsan}},
		Keep:  []string{`ERROR: AddressSanitizer`, `SUMMARY: AddressSanitizer`}},
}
