/* A NULL dereference: valgrind's "Invalid write of size 4" at address 0x0
   ("not stack'd, malloc'd or (recently) free'd"), then the program dies of
   SIGSEGV and so does valgrind. */
#include <stddef.h>

static void set(int *p)
{
	*p = 1; /* MARK access */
}

int main(void)
{
	set(NULL);
	return 0;
}
