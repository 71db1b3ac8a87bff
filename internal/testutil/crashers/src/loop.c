#include <stdio.h>
#include <stdlib.h>

/* step is called once per iteration: a tracepoint at its line is hit
 * exactly as many times as the loop runs (ARG, default 10000). */
static long step(int i, long acc) {
	return acc + 2 * i;
}

int main(int argc, char **argv) {
	int n = argc > 1 ? atoi(argv[1]) : 10000;
	long acc = 0;
	for (int i = 0; i < n; i++)
		acc = step(i, acc);
	printf("acc=%ld\n", acc);
	return 0;
}
