#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
#include <cstdlib>
#include <stdexcept>

static int add(int a, int b) { return a + b; }

TEST_CASE("adds numbers") {
  CHECK(add(2, 2) == 4);
  REQUIRE(add(0, 0) == 0);
}

TEST_CASE("fails an assertion") {
  CHECK(add(2, 2) == 5);
  REQUIRE(add(1, 1) == 3);
}

TEST_CASE("subcases") {
  SUBCASE("first") { CHECK(add(1, 2) == 3); }
  SUBCASE("second") { CHECK(add(1, 2) == 4); }
}

TEST_CASE("skipped" * doctest::skip()) { CHECK(false); }

TEST_CASE("segfaults") {
  volatile int *p = nullptr;
  *p = 1;
}

TEST_CASE("aborts") { std::abort(); }

TEST_CASE("exits zero") { std::exit(0); }

TEST_CASE("throws") { throw std::runtime_error("boom from throws"); }

TEST_CASE("runs last") { CHECK(add(0, 1) == 1); }
