#include CATCH_HEADER
#include <cstdlib>
#include <stdexcept>
#include <string>

static int add(int a, int b) { return a + b; }

TEST_CASE("adds numbers", "[math]") {
  REQUIRE(add(2, 2) == 4);
  CHECK(add(0, 0) == 0);
}

TEST_CASE("fails an assertion", "[math]") {
  int x = add(2, 2);
  CHECK(x == 5);
  REQUIRE(add(1, 1) == 3);
}

TEST_CASE("sections", "[math]") {
  SECTION("first") { REQUIRE(add(1, 2) == 3); }
  SECTION("second") { REQUIRE(add(1, 2) == 4); }
}

TEST_CASE("segfaults", "[crash]") {
  volatile int *p = nullptr;
  *p = 1;
}

TEST_CASE("aborts", "[crash]") { std::abort(); }

TEST_CASE("exits zero", "[crash]") { std::exit(0); }

TEST_CASE("throws", "[crash]") { throw std::runtime_error("boom from throws"); }

TEST_CASE("runs last", "[later]") { REQUIRE(std::string("a") + "b" == "ab"); }

#if CATCH_VERSION_MAJOR >= 3
TEST_CASE("skips itself", "[skip]") { SKIP("not on this machine"); }
#endif
