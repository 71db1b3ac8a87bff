// bits: small integer helpers.
#pragma once

int gcd(int a, int b);
int clamp(int v, int lo, int hi);
unsigned popcount(unsigned x);
