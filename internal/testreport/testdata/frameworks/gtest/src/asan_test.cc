#include <gtest/gtest.h>

static int at(const int *v, int i) { return v[i]; }

TEST(Heap, InBounds) {
  int *v = new int[4]{1, 2, 3, 4};
  EXPECT_EQ(at(v, 3), 4);
  delete[] v;
}
TEST(Heap, Overflow) {
  int *v = new int[4]{1, 2, 3, 4};
  EXPECT_EQ(at(v, 4), 0);
  delete[] v;
}
