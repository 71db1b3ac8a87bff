/* A buffer freed twice: "Invalid free() / delete / delete[] / realloc()",
   0 bytes inside a block of size 32 free'd. */
#include <stdlib.h>
#include <string.h>

static void release(char *p)
{
	free(p); /* MARK free */
}

int main(void)
{
	char *buf = malloc(32); /* MARK alloc */
	memset(buf, 0, 32);
	release(buf);
	free(buf); /* MARK access */
	return 0;
}
