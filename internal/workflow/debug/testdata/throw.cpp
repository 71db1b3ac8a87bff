// A C++ program that throws and catches: an exception stop must come
// before the catch runs (caught stays 0).
#include <cstdio>
#include <stdexcept>

int caught;

static void thrower(int n) {
	if (n > 2)
		throw std::runtime_error("too big");
}

int main() {
	try {
		thrower(3);
	} catch (const std::exception &e) {
		caught = 1;
		std::printf("caught %s\n", e.what());
	}
	return 0;
}
