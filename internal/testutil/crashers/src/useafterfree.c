#include <stdio.h>
#include <stdlib.h>

struct node {
	struct node *next;
	long value;
};

struct record { /* the size of a node */
	long id;
	long count;
};

static long sum(const struct node *n) {
	long s = 0;
	for (; n != NULL; n = n->next)
		s += n->value;
	return s;
}

int main(void) {
	struct node *b = malloc(sizeof *b);
	struct node *a = malloc(sizeof *a);
	b->next = NULL, b->value = 2;
	a->next = b, a->value = 1;
	free(a); /* and still used below */
	struct record *r = malloc(sizeof *r); /* glibc hands out a's block again */
	r->id = 0x5a5a5a5a5a5a, r->count = 1; /* over what was a->next */
	printf("sum %ld\n", sum(a));
	free(r);
	free(b);
	return 0;
}
