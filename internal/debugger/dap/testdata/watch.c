/* A watchpoint target: counter is written on line 7. */
#include <stdio.h>

int counter;

static void bump(int n) {
	counter = counter + n;
	printf("%d\n", counter);
}

int main(void) {
	bump(1);
	bump(2);
	return 0;
}
