#include <stdio.h>
#include <stdlib.h>

/* fill writes n bytes into p, which holds fewer: a heap buffer overflow. */
static void fill(char *p, size_t n) {
	for (size_t i = 0; i < n; i++)
		p[i] = 'A';
}

int main(int argc, char **argv) {
	size_t n = 40;
	(void)argv;
	if (argc > 1 && scanf("%zu", &n) != 1) /* "-": how many bytes to write, from stdin */
		return 2;
	char *name = malloc(24);
	fill(name, n); /* past the block's 24 bytes: over the next chunk's size */
	char *later = malloc(4000); /* glibc dies here: malloc(): corrupted top size */
	printf("%p %p\n", (void *)name, (void *)later);
	return 0;
}
