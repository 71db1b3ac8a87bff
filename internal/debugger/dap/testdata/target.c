#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct point { int x, y; };

int add(int a, int b) {
	int sum = a + b;
	return sum;
}

int crash(int *p) {
	return *p; /* line 14: the fault */
}

int main(int argc, char **argv) {
	struct point pt = { 3, 4 };
	char big[4096];
	memset(big, 'x', sizeof big - 1);
	big[sizeof big - 1] = 0;
	int total = 0;
	for (int i = 0; i < 5; i++) {
		total = add(total, i); /* line 24 */
	}
	if (argc > 1 && strcmp(argv[1], "crash") == 0)
		return crash(NULL);
	if (argc > 1 && strcmp(argv[1], "wait") == 0) {
		printf("waiting\n"); /* readiness line for attach tests */
		fflush(stdout);
		for (;;) { pause(); }
	}
	printf("%d %d %zu\n", total, pt.x, strlen(big));
	return 3;
}
