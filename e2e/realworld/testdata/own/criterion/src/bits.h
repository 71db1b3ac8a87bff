/* bits: small integer helpers. */
#ifndef BITS_H
#define BITS_H

int gcd(int a, int b);
int clamp(int v, int lo, int hi);
unsigned popcount(unsigned x);

#endif
