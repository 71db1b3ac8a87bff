/* A hash table whose grow computes a bucket one past the end of its new
   array and reads it: valgrind's "Invalid read of size 8", 0 bytes after a
   block of size 256. */
#include <stdio.h>
#include <stdlib.h>

struct table {
	long **slots;
	int n;
};

static long **make_slots(int n)
{
	return calloc(n, sizeof(long *)); /* MARK alloc */
}

static long *grow(struct table *t)
{
	t->slots = make_slots(t->n);
	return t->slots[t->n]; /* MARK access */
}

int main(void)
{
	struct table t = {0, 32};
	long *p = grow(&t);
	printf("%p\n", (void *)p);
	free(t.slots);
	return 0;
}
