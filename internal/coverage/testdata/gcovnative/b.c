#include "h.h"
int bfun(int x) { return hsq(x) + 1; }
int bnever(int x) {
	return hsq(x) * 2;
}
