package testreport

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// caseSources are small test files; "@" marks the line asked about.
var caseSources = []struct {
	name, src, want string
}{
	{"catch2", `#include <catch2/catch.hpp>
TEST_CASE("gcd of two numbers", "[gcd]")
{
    CHECK(gcd(12, 18) == 6);
}

TEST_CASE("popcount counts set bits", "[popcount]")
{
    CHECK(popcount(0) == 0);
    CHECK(popcount(0xffu) == 8); @
}`, "popcount counts set bits"},
	{"catch2 section nested braces", `TEST_CASE("vectors grow") {
    std::vector<int> v{1, 2};
    SECTION("push") {
        if (v.size()) { v.push_back(3); }
        v.push_back(4); @
    }
}`, "vectors grow"},
	{"scenario", `SCENARIO("a stack") {
    GIVEN("empty") { @ }
}`, "Scenario: a stack"},
	{"catch2 method", `TEST_CASE_METHOD(Fixture, "uses the fixture", "[f]") {
    run(); @
}`, "uses the fixture"},
	{"doctest fixture, brace on the macro's line", `TEST_CASE_FIXTURE(DB, "query") {
    SUBCASE("one") {
        q(1); @
    }
}`, "query"},
	{"helper between cases", `TEST_CASE("first") {
    CHECK(1);
}

static int helper(int x)
{
    return x * 2; @
}

TEST_CASE("second") {
    CHECK(helper(1) == 2);
}`, ""},
	{"outside any case", `#include "bits.hpp" @
TEST_CASE("first") {
}`, ""},
	{"closing brace of the case", `TEST_CASE("first")
{
    Guard g;
} @`, "first"},
	{"braces in strings and comments", `TEST_CASE("braces") {
    CHECK(s == "}}}"); // }}
    /* } */ CHECK(c == '}');
    run(); @
}`, "braces"},
	{"gtest", `TEST_F(BitsTest, CountsSetBits) {
  EXPECT_EQ(popcount(3), 2u); @
}`, "BitsTest.CountsSetBits"},
	{"boost", `BOOST_FIXTURE_TEST_CASE(counts_bits, Fixture)
{
    BOOST_CHECK(popcount(3) == 2); @
}`, "counts_bits"},
	{"check", `START_TEST(test_popcount)
{
    ck_assert_int_eq(popcount(3), 2); @
}
END_TEST`, "test_popcount"},
	{"criterion", `Test(bits, popcount_counts_set_bits)
{
    cr_expect_eq(popcount(3), 2); @
}`, "popcount_counts_set_bits"},
	{"criterion macro line", `Test(bits, gcd) { @
}`, "gcd"},
	{"a macro in a comment", `// TEST_CASE("old") {
int f() {
    return 1; @
}`, ""},
}

func TestCaseAt(t *testing.T) {
	dir := t.TempDir()
	for i, tt := range caseSources {
		t.Run(tt.name, func(t *testing.T) {
			line := 0
			lines := strings.Split(tt.src, "\n")
			for n, l := range lines {
				if strings.Contains(l, "@") {
					line = n + 1
					lines[n] = strings.Replace(l, " @", "", 1)
				}
			}
			path := filepath.Join(dir, strings.Repeat("x", i+1)+".cpp")
			if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o600); err != nil {
				t.Fatal(err)
			}
			got, ok := CaseAt(path, line)
			if got != tt.want || ok != (tt.want != "") {
				t.Errorf("CaseAt(line %d) = %q, %v; want %q", line, got, ok, tt.want)
			}
		})
	}
}

func TestCaseAtUnreadable(t *testing.T) {
	if got, ok := CaseAt(filepath.Join(t.TempDir(), "gone.cpp"), 3); ok {
		t.Errorf("CaseAt(missing file) = %q, true", got)
	}
	path := filepath.Join(t.TempDir(), "short.cpp")
	if err := os.WriteFile(path, []byte("TEST_CASE(\"a\") {\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, ok := CaseAt(path, 40); ok {
		t.Errorf("CaseAt(past the end) = %q, true", got)
	}
}

// The team's own Catch2 and doctest test files, whose popcount case the
// stacks of a hung or sanitizer-killed run pass through.
func TestCaseAtOwnProjects(t *testing.T) {
	for _, f := range []string{"catch2", "doctest"} {
		path := filepath.Join("..", "..", "e2e", "realworld", "testdata", "own", f, "tests", "test_bits.cpp")
		src, err := os.ReadFile(path)
		if err != nil {
			t.Skip(err)
		}
		lines := strings.Split(string(src), "\n")
		at := 0
		for n, l := range lines {
			if strings.Contains(l, "popcount(0xffu)") {
				at = n + 1
			}
		}
		if got, ok := CaseAt(path, at); got != "popcount counts set bits" || !ok {
			t.Errorf("%s: CaseAt(%d) = %q, %v", f, at, got, ok)
		}
	}
}

// bitsCatch2 is the team's own Catch2 test file (e2e/realworld/testdata/own);
// line 25 is in its popcount case.
const bitsCatch2 = `#include <catch2/catch.hpp>

#include "bits.hpp"

TEST_CASE("gcd of two numbers", "[gcd]")
{
    CHECK(gcd(12, 18) == 6);
    CHECK(gcd(-4, 6) == 2);
    CHECK(gcd(7, 0) == 7);
}

TEST_CASE("clamp keeps a value in range", "[clamp]")
{
    CHECK(clamp(5, 0, 10) == 5);
    CHECK(clamp(-1, 0, 10) == 0);
    CHECK(clamp(11, 0, 10) == 10);
}

static unsigned twice(unsigned x) { return 2 * x; }

TEST_CASE("popcount counts set bits", "[popcount]")
{
    CHECK(twice(1) == 2);
    CHECK(popcount(0) == 0);
    CHECK(popcount(0xffu) == 8);
}
`

// asanInCase is an AddressSanitizer report in the library's popcount,
// called from the test file's line 25 (Catch2 v2, g++ 12).
func asanInCase(test string) string {
	return "=================================================================\n" +
		"==7==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602 at pc 0x55 bp 0x7ff sp 0x7fe\n" +
		"READ of size 4 at 0x602 thread T0\n" +
		"    #0 0x5581 in popcount(unsigned int) /src/bits/src/bits.cpp:29\n" +
		"    #1 0x5582 in ____C_A_T_C_H____T_E_S_T____4() " + test + ":25\n" +
		"    #2 0x5583 in Catch::TestInvokerAsFunction::invoke() const (/src/bits/build/test_bits+0x1234)\n" +
		"\n" +
		"0x602 is located 0 bytes to the right of 4-byte region\n" +
		"allocated by thread T0 here:\n" +
		"    #0 0x7fb2 in operator new(unsigned long) ../../../../src/libsanitizer/asan/asan_new_delete.cpp:95\n" +
		"    #1 0x5584 in ____C_A_T_C_H____T_E_S_T____0() " + test + ":7\n" +
		"\n" +
		"SUMMARY: AddressSanitizer: heap-buffer-overflow /src/bits/src/bits.cpp:29 in popcount(unsigned int)\n"
}

// A sanitizer's report read in CTest's and automake's output names the
// test case its stack passed through in the test file, which the
// framework never named; when the file cannot be read, nothing is said.
func TestSanitizerNamesCase(t *testing.T) {
	dir := t.TempDir()
	test := filepath.Join(dir, "test_bits.cpp")
	if err := os.WriteFile(test, []byte(bitsCatch2), 0o600); err != nil {
		t.Fatal(err)
	}
	const want = "popcount counts set bits: AddressSanitizer: heap-buffer-overflow in popcount(unsigned int) at "
	for _, tt := range []struct{ file, want string }{
		{test, want}, {filepath.Join(dir, "gone.cpp"), "AddressSanitizer: heap-buffer-overflow in popcount(unsigned int) at "},
	} {
		log := "Test project /src/bits/build\n    Start 1: test_bits\n" +
			"1/1 Test #1: test_bits ........................***Failed    0.15 sec\n" +
			asanInCase(tt.file) + "\n0% tests passed, 1 tests failed out of 1\n"
		rep, err := Parse(FormatCTest, strings.NewReader(log))
		if err != nil {
			t.Fatal(err)
		}
		if c := rep.Cases[0]; c.Status != Crashed || c.Message != tt.want+"/src/bits/src/bits.cpp:29" || c.Line != 29 {
			t.Errorf("ctest: %s %q at %s:%d, want %q", c.Status, c.Message, c.File, c.Line, tt.want)
		}
		if err := os.WriteFile(filepath.Join(dir, "test_bits.log"), []byte(asanInCase(tt.file)+"FAIL test_bits (exit status: 1)\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		rep, err = Parse(FormatAutomake, strings.NewReader("FAIL: test_bits\n# TOTAL: 1\n# PASS:  0\n# FAIL:  1\n"))
		if err != nil {
			t.Fatal(err)
		}
		rep.ReadTestLogs(dir, nil, 10, nil)
		if c := rep.Cases[0]; c.Status != Crashed || c.Message != tt.want+"bits.cpp:29" {
			t.Errorf("automake: %s %q, want %q", c.Status, c.Message, tt.want+"bits.cpp:29")
		}
	}
}
