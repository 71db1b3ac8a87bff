#include <stdio.h>
#include <stdlib.h>

int main(void) {
	fputs("calling abort()\n", stderr);
	abort();
}
