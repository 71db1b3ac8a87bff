#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Usage: bigoutput BYTES. Writes BYTES of 100-byte lines to stdout. */
int main(int argc, char **argv) {
	long long total = argc > 1 ? atoll(argv[1]) : 1 << 20;
	static char buf[1 << 16];
	for (size_t i = 0; i < sizeof buf; i++)
		buf[i] = (i % 100 == 99) ? '\n' : 'a' + (char)(i % 26);
	/* 65500 is a multiple of 100, so lines stay 100 bytes across writes. */
	const long long chunk = 65500;
	while (total > 0) {
		long long n = total < chunk ? total : chunk;
		ssize_t w = write(1, buf, (size_t)n);
		if (w <= 0)
			return 1;
		total -= w;
	}
	return 0;
}
