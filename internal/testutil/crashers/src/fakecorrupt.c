#include <signal.h>
#include <stdio.h>
#include <unistd.h>

/* Says what glibc says of a corrupted heap, then sends itself SIGSEGV:
   a crash that looks like memory corruption and is none. */
int main(void) {
	fputs("free(): invalid pointer\n", stderr);
	kill(getpid(), SIGSEGV);
	return 0;
}
