#include <stdio.h>
#include <string.h>

static int add(int a, int b) {
	int sum = a + b;
	return sum;
}

int main(int argc, char **argv) {
	int total = 0;
	for (int i = 0; i < 5; i++)
		total = add(total, i);
	printf("total %d\n", total);
	fflush(stdout);
	if (argc > 1 && strcmp(argv[1], "crash") == 0) {
		int *p = NULL;
		*p = total; /* line 17: SIGSEGV */
	}
	return 3;
}
