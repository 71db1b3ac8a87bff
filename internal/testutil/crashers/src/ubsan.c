#include <limits.h>
#include <stdio.h>

int main(void) {
	volatile int x = INT_MAX;
	int y = x + 1; /* signed integer overflow */
	printf("%d\n", y);
	return 0;
}
