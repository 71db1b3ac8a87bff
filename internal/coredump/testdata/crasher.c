/* crasher: dies the way argv[1] says, in a function with a known line. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) void crash_null(int *p) {
	*p = 42; /* CRASH-LINE-SEGV */
}

__attribute__((noinline)) void do_abort(void) {
	abort(); /* CRASH-LINE-ABORT */
}

int main(int argc, char **argv) {
	const char *mode = argc > 1 ? argv[1] : "segv";
	if (strcmp(mode, "segv") == 0)
		crash_null((int *)0);
	if (strcmp(mode, "abort") == 0)
		do_abort();
	if (strcmp(mode, "exit") == 0)
		return 3;
	fprintf(stderr, "unknown mode %s\n", mode);
	return 2;
}
