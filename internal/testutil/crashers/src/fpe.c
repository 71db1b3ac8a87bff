#include <stdio.h>

int divide(int a, int b) {
	return a / b;
}

int main(void) {
	volatile int zero = 0;
	printf("%d\n", divide(1, zero));
	return 0;
}
