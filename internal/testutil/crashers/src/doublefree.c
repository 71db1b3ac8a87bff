#include <stdlib.h>

int main(void) {
	char *volatile p = malloc(32);
	free(p);
	free(p);
	return 0;
}
