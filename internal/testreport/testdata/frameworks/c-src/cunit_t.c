#include <CUnit/Basic.h>
#include "fault.h"

static void test_add(void) { CU_ASSERT_EQUAL(1 + 1, 2); }
static void test_fault(void) {
	cfw_crash();
	CU_ASSERT_EQUAL(cfw_failing() ? 3 : 2, 2);
}
static void test_sub(void) { CU_ASSERT_EQUAL(3 - 1, 2); }
static void test_same(void) { CU_ASSERT_STRING_EQUAL("a", "a"); }

int main(void) {
	if (CU_initialize_registry() != CUE_SUCCESS)
		return CU_get_error();
	CU_pSuite math = CU_add_suite("math", NULL, NULL);
	CU_add_test(math, "add", test_add);
	CU_add_test(math, "fault", test_fault);
	CU_add_test(math, "sub", test_sub);
	CU_pSuite str = CU_add_suite("strings", NULL, NULL);
	CU_add_test(str, "same", test_same);
	CU_basic_set_mode(getenv("CFW_CU_MODE") && strcmp(getenv("CFW_CU_MODE"), "normal") == 0 ? CU_BRM_NORMAL : CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
