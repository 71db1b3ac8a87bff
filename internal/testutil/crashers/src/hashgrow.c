#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct node {
	int key;
	struct node *next;
};

/* A table's buckets are sentinel heads, size of them (a power of two),
 * then the NULL that ends the array. */
struct table {
	unsigned size, count;
	struct node **slots;
};

static int wrapped;

/* list_insert puts key right after the list's head node. */
static void list_insert(struct node *node, int key) {
	struct node *n = calloc(1, sizeof *n);
	n->key = key;
	n->next = node->next;
	node->next = n;
}

/* bucket_add passes its bucket on, as it was given. */
static void bucket_add(struct node *bucket, int key) {
	list_insert(bucket, key);
}

static struct node **new_slots(unsigned size) {
	struct node **slots = calloc(size + 1, sizeof *slots);
	for (unsigned i = 0; i < size; i++)
		slots[i] = calloc(1, sizeof **slots);
	return slots;
}

/* table_grow doubles the buckets and moves every key: its mask is the new
 * size, not size - 1, so a key lands one past the last bucket, on the
 * NULL that ends the array. */
static void table_grow(struct table *t) {
	struct node **old = t->slots;
	unsigned old_size = t->size;
	t->size *= 2;
	t->slots = new_slots(t->size);
	for (unsigned b = 0; b < old_size; b++) {
		for (struct node *e = old[b]->next; e; e = e->next) {
			unsigned i = (unsigned)e->key & t->size;
			if (wrapped)
				bucket_add(t->slots[i], e->key);
			else
				list_insert(t->slots[i], e->key);
		}
	}
}

static void table_add(struct table *t, int key) {
	if (t->count == t->size)
		table_grow(t);
	list_insert(t->slots[(unsigned)key & (t->size - 1)], key);
	t->count++;
}

int main(int argc, char **argv) {
	if (argc > 1 && strcmp(argv[1], "main") == 0) {
		struct node *n = NULL;
		return n->key;
	}
	wrapped = argc > 1 && strcmp(argv[1], "wrapped") == 0;
	struct table t = {4, 0, new_slots(4)};
	puts("filling the table");
	fflush(stdout);
	for (int k = 0; k < 20; k++)
		table_add(&t, 3 * k);
	printf("%u keys\n", t.count);
	return 0;
}
