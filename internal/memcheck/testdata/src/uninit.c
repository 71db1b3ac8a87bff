/* A flag never set decides a branch: "Conditional jump or move depends on
   uninitialised value(s)", created by a heap allocation (track-origins). */
#include <stdio.h>
#include <stdlib.h>

struct config {
	int verbose;
	int level;
};

static struct config *load(void)
{
	struct config *c = malloc(sizeof *c); /* MARK alloc */
	c->level = 3;
	return c;
}

int main(void)
{
	struct config *c = load();
	if (c->verbose) /* MARK access */
		puts("verbose");
	free(c);
	return 0;
}
