int main(void) {
	__builtin_trap();
}
