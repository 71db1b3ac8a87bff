#include <stdlib.h>

void *keep;

int main(void) {
	keep = malloc(64);
	keep = 0; /* lost */
	return 0;
}
