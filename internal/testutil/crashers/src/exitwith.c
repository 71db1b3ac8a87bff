#include <stdio.h>
#include <stdlib.h>

/* Usage: exitwith CODE [STDERR-LINE]. Silent unless a line is given. */
int main(int argc, char **argv) {
	if (argc > 2)
		fprintf(stderr, "%s\n", argv[2]);
	return argc > 1 ? atoi(argv[1]) : 0;
}
