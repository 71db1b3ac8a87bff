// C++: gcov demangles these names, so gcov reads this object's data.
template <typename T> T twice(T x) { return x + x; }
int main() { return twice(1) + twice(2.0) > 100; }
