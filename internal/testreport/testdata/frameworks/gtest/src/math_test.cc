#include <gtest/gtest.h>
#include <cstdlib>
#include <stdexcept>

static int add(int a, int b) { return a + b; }

TEST(Math, Adds) { EXPECT_EQ(add(2, 2), 4); }
TEST(Math, Fails) {
  EXPECT_EQ(add(2, 2), 5) << "two and two";
  EXPECT_TRUE(add(1, 1) == 3);
}
TEST(Math, Skipped) { GTEST_SKIP() << "not on this machine"; }
TEST(Crash, Segv) {
  volatile int *p = nullptr;
  *p = 1;
}
TEST(Crash, Abort) { std::abort(); }
TEST(Crash, ExitZero) { std::exit(0); }
TEST(Crash, Throws) { throw std::runtime_error("boom from Throws"); }
TEST(Later, Runs) { EXPECT_EQ(add(0, 0), 0); }
