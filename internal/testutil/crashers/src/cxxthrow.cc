#include <stdexcept>

int main() {
	throw std::runtime_error("boom from C++");
}
