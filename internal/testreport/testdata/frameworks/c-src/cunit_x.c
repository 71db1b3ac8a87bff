#include <CUnit/Basic.h>
static int init_fail(void) { return 1; }
static void test_ok(void) { CU_PASS("fine"); CU_ASSERT(1); }
static void test_off(void) { CU_ASSERT(0); }
int main(void) {
	CU_initialize_registry();
	CU_pSuite a = CU_add_suite("a", NULL, NULL);
	CU_add_test(a, "ok", test_ok);
	CU_pTest off = CU_add_test(a, "off", test_off);
	CU_set_test_active(off, CU_FALSE);
	CU_pSuite b = CU_add_suite("b", init_fail, NULL);
	CU_add_test(b, "never", test_ok);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	CU_cleanup_registry();
	return 0;
}
