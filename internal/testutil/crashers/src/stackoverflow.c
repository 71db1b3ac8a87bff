#include <stdio.h>

int recurse(int depth) {
	volatile char pad[1024];
	pad[0] = (char)depth;
	return recurse(depth + 1) + pad[0];
}

int main(void) {
	puts("recursing");
	fflush(stdout);
	return recurse(0);
}
