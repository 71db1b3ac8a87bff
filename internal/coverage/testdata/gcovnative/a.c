/* What gcov's line counts hinge on: calls that do not return (exit,
   longjmp), a loop on one line, two functions that begin on one line (a
   group), a switch, a goto, a function never called, and an inline
   function of a header that two objects include. */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include "h.h"
#define TWO(n) int f1_##n(int x) { return x + 1; } int f2_##n(int x) { return x ? x - 1 : 0; }
TWO(a)
static jmp_buf jb;
static void jump(int v) { if (v > 1) longjmp(jb, v); }
int never(int x) {
	int s = 0;
	for (int i = 0; i < x; i++) s += i;
	return s;
}
int sw(int k) {
	switch (k) {
	case 0: return 10;
	case 1:
		return 11;
	default:
		break;
	}
	int i = 0; while (i < k) i++; return i;
}
int main(int argc, char **argv) {
	int s = hsq(argc) + hsq(5) + f1_a(1);
	if (setjmp(jb) == 0) {
		jump(1);
		jump(3);
		puts("unreached");
	}
	for (int i = 0; i < 4; i++) { s += sw(i); if (i == 9) goto out; }
	s += argc > 3 ? never(3) : 0;
out:
	printf("%d\n", s);
	if (argc > 1) exit(2);
	return 0;
}
