#include <stdio.h>

struct node {
	int value;
	struct node *next;
};

/* total reads the second node of a one-node list: n is NULL, so n->value
 * faults at address 0x0 with the NULL in a local, not an argument. */
static int total(const struct node *head, const char *label) {
	int sum = head->value;
	const struct node *n = head->next;
	sum += n->value;
	printf("%s: %d\n", label, sum);
	return sum;
}

int main(void) {
	struct node head = {1, NULL};
	puts("summing the list");
	fflush(stdout);
	return total(&head, "list");
}
