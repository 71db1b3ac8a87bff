#include <stdlib.h>

int main(void) {
	volatile int *a = malloc(4 * sizeof(int));
	int r = a[4]; /* heap-buffer-overflow */
	free((void *)a);
	return r;
}
