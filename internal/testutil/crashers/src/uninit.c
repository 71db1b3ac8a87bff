#include <stdio.h>
#include <stdlib.h>

struct conf {
	int verbose;
	int level;
};

struct conf *conf_new(void) {
	struct conf *c = malloc(sizeof *c);
	c->level = 1; /* verbose left unset */
	return c;
}

int main(void) {
	struct conf *c = conf_new();
	if (c->verbose)
		printf("verbose\n");
	printf("done\n");
	free(c);
	return 0;
}
