#include <stdio.h>
#include <stdlib.h>

int sum(const int *a, int n) {
	int s = 0;
	for (int i = 0; i <= n; i++) /* one past the end */
		s += a[i];
	return s;
}

int main(void) {
	int *a = calloc(4, sizeof *a);
	sum(a, 4);
	free(a);
	printf("done\n");
	return 0;
}
