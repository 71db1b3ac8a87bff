/* 64 bytes allocated and the only pointer to them dropped: definitely
   lost, 64 bytes in 1 block. */
#include <stdlib.h>
#include <string.h>

static char *copy(const char *s)
{
	char *p = malloc(64); /* MARK alloc */
	strncpy(p, s, 63);
	p[63] = 0;
	return p;
}

int main(void)
{
	char *p = copy("hello");
	p = NULL;
	return p != NULL;
}
