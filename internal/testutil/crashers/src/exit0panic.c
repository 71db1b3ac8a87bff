#include <stdio.h>

/* Exits 0 but its output carries a Go-style panic. */
int main(void) {
	puts("running tests");
	fputs("panic: runtime error: invalid memory address or nil pointer dereference\n", stderr);
	fputs("[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x47b1c2]\n", stderr);
	puts("ok");
	return 0;
}
