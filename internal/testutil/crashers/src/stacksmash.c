#include <string.h>

void overflow(const char *s) {
	char buf[4];
	strcpy(buf, s);
}

int main(void) {
	overflow("this string is far longer than four bytes");
	return 0;
}
