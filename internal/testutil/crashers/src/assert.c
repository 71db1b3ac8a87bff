#include <assert.h>

int check(int x) {
	assert(x == 2);
	return x;
}

int main(void) {
	return check(1);
}
