#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include "fault.h"

static void test_add(void **state) { (void)state; assert_int_equal(1 + 1, 2); }
static void test_fault(void **state) {
	(void)state;
	cfw_crash();
	assert_int_equal(cfw_failing() ? 3 : 2, 2);
}
static void test_sub(void **state) { (void)state; assert_int_equal(3 - 1, 2); }
static void test_skip(void **state) { (void)state; skip(); }

int main(void) {
	const struct CMUnitTest math[] = {
		cmocka_unit_test(test_add),
		cmocka_unit_test(test_fault),
		cmocka_unit_test(test_sub),
		cmocka_unit_test(test_skip),
	};
	return cmocka_run_group_tests_name("math", math, NULL, NULL);
}
