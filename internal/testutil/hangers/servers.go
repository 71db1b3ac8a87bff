package hangers

import "testing"

// Server is a C program that listens on a loopback TCP port nobody
// connects to and prints "ready", then waits for a connection: in accept
// ("ACCEPT"), or with the argument "epoll" in epoll_wait on the listening
// socket ("EPOLL-WAIT"), or with "poll" in poll ("POLL-ONE").
func Server(t testing.TB) Program {
	t.Helper()
	return cProgram(t, "server", serverC)
}

const serverC = `#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>

int main(int argc, char **argv) {
	const char *mode = argc > 1 ? argv[1] : "accept";
	struct sockaddr_in a;
	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	int s = socket(AF_INET, SOCK_STREAM, 0);
	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof a) != 0 || listen(s, 8) != 0)
		return 1;
	puts("ready");
	fflush(stdout);
	if (strcmp(mode, "epoll") == 0) {
		struct epoll_event ev = {.events = EPOLLIN}, out;
		int ep = epoll_create1(0);
		epoll_ctl(ep, EPOLL_CTL_ADD, s, &ev);
		return epoll_wait(ep, &out, 1, -1) == 1 ? 0 : 2; /* EPOLL-WAIT */
	}
	if (strcmp(mode, "poll") == 0) {
		struct pollfd p = {.fd = s, .events = POLLIN};
		return poll(&p, 1, -1) == 1 ? 0 : 2; /* POLL-ONE */
	}
	return accept(s, 0, 0) >= 0 ? 0 : 2; /* ACCEPT */
}
`
