/* A node read after it was freed: "Invalid read of size 4", 8 bytes inside
   a block of size 16 free'd, with the free and the allocation stacks. */
#include <stdio.h>
#include <stdlib.h>

struct node {
	struct node *next;
	int value;
};

static struct node *push(struct node *head, int v)
{
	struct node *n = malloc(sizeof *n); /* MARK alloc */
	n->next = head;
	n->value = v;
	return n;
}

static void drop(struct node *n)
{
	free(n); /* MARK free */
}

int main(void)
{
	struct node *head = push(NULL, 7);
	drop(head);
	printf("%d\n", head->value); /* MARK access */
	return 0;
}
