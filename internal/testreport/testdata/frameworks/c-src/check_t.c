#include <check.h>
#include "fault.h"

START_TEST(test_add) { ck_assert_int_eq(1 + 1, 2); }
END_TEST

START_TEST(test_fault) {
	cfw_crash();
	ck_assert_int_eq(cfw_failing() ? 3 : 2, 2);
}
END_TEST

START_TEST(test_sub) { ck_assert_int_eq(3 - 1, 2); }
END_TEST

START_TEST(test_str) { ck_assert_str_eq("a", "a"); }
END_TEST

static Suite *math_suite(void) {
	Suite *s = suite_create("Math");
	TCase *core = tcase_create("Core");
	tcase_add_test(core, test_add);
	tcase_add_test(core, test_fault);
	tcase_add_test(core, test_sub);
	suite_add_tcase(s, core);
	TCase *str = tcase_create("Strings");
	tcase_add_test(str, test_str);
	suite_add_tcase(s, str);
	return s;
}

int main(void) {
	SRunner *sr = srunner_create(math_suite());
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
