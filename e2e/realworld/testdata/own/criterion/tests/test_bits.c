#include <criterion/criterion.h>

#include "bits.h"

Test(bits, gcd_of_two_numbers)
{
    cr_expect_eq(gcd(12, 18), 6);
    cr_expect_eq(gcd(-4, 6), 2);
    cr_expect_eq(gcd(7, 0), 7);
}

Test(bits, clamp_keeps_a_value_in_range)
{
    cr_expect_eq(clamp(5, 0, 10), 5);
    cr_expect_eq(clamp(-1, 0, 10), 0);
    cr_expect_eq(clamp(11, 0, 10), 10);
}

Test(bits, popcount_counts_set_bits)
{
    cr_expect_eq(popcount(0), 0);
    cr_expect_eq(popcount(0xffu), 8);
    cr_expect_eq(popcount(0x80000001u), 2);
}
