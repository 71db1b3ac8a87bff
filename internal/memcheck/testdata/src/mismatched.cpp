// An array allocated with new[] and released with delete: valgrind's
// MismatchedFree ("Mismatched free() / delete / delete []").
int main()
{
	int *a = new int[8]; // MARK alloc
	a[0] = 1;
	int v = a[0];
	delete a; // MARK access
	return v - 1;
}
