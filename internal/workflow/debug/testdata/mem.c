#include <string.h>

static int fill(char *buf, int n) {
	int sum = 0;
	for (int i = 0; i < n; i++)
		buf[i] = 'A' + i;
	for (int i = 0; i < n; i++)
		sum += buf[i];
	return sum; /* line 9: a breakpoint */
}

int main(int argc, char **argv) {
	char letters[20];
	int sum = fill(letters, 20);
	if (argc > 1 && strcmp(argv[1], "crash") == 0) {
		int *p = NULL;
		*p = sum; /* line 17: SIGSEGV */
	}
	return sum & 1;
}
