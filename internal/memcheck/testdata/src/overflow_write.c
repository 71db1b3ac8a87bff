/* A write one element past a malloc'd array of 64 ints: valgrind's
   "Invalid write of size 4", 0 bytes after a block of size 256. */
#include <stdlib.h>

static int *make_table(int n)
{
	return malloc(n * sizeof(int)); /* MARK alloc */
}

static void fill(int *a, int n)
{
	for (int i = 0; i <= n; i++)
		a[i] = i; /* MARK access */
}

int main(void)
{
	int *a = make_table(64);
	fill(a, 64);
	free(a);
	return 0;
}
