#include <stdio.h>

/* crash_here dereferences NULL so backtraces name a function and a line. */
int crash_here(int *p) {
	return *p;
}

int main(void) {
	puts("about to dereference NULL");
	fflush(stdout);
	return crash_here((int *)0);
}
