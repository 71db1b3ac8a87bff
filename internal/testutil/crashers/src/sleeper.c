#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Usage: sleeper SECONDS. Prints "ready" first. */
int main(int argc, char **argv) {
	int secs = argc > 1 ? atoi(argv[1]) : 3600;
	puts("ready");
	fflush(stdout);
	sleep(secs);
	return 0;
}
