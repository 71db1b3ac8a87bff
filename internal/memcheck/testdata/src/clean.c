/* No memory error: every block freed, every value set. */
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
	int *a = malloc(16 * sizeof(int));
	for (int i = 0; i < 16; i++)
		a[i] = i;
	printf("%d\n", a[15]);
	free(a);
	return 0;
}
