#if __has_include(<catch2/catch_test_macros.hpp>)
#include <catch2/catch_test_macros.hpp>
#else
#include <catch2/catch.hpp>
#endif

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

TEST_CASE("popcount counts set bits", "[popcount]")
{
    CHECK(popcount(0) == 0);
    CHECK(popcount(0xffu) == 8);
    CHECK(popcount(0x80000001u) == 2);
}
