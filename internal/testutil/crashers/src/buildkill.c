#include <signal.h>
#include <stdio.h>
#include <unistd.h>

/* Claims success like xcodebuild, then dies of SIGKILL. */
int main(void) {
	puts("** BUILD SUCCEEDED **");
	fflush(stdout);
	kill(getpid(), SIGKILL);
	return 0;
}
