#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * Usage: sigtermfork hang|exit
 * Ignores SIGTERM, forks a grandchild that also ignores it and keeps stdout
 * open, prints "grandchild <pid>", then either sleeps (hang) or exits (exit).
 */
int main(int argc, char **argv) {
	signal(SIGTERM, SIG_IGN);
	pid_t pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		for (;;)
			pause();
	}
	printf("grandchild %d\n", (int)pid);
	fflush(stdout);
	if (argc > 1 && strcmp(argv[1], "exit") == 0)
		return 0;
	for (;;)
		pause();
}
