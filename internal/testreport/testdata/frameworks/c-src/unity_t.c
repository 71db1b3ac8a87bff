#include "unity.h"
#include "fault.h"

void setUp(void) {}
void tearDown(void) {}

static void test_add(void) { TEST_ASSERT_EQUAL_INT(2, 1 + 1); }
static void test_fault(void) {
	cfw_crash();
	TEST_ASSERT_EQUAL_INT_MESSAGE(2, cfw_failing() ? 3 : 2, "fault");
}
static void test_sub(void) { TEST_ASSERT_EQUAL_INT(2, 3 - 1); }
static void test_ignored(void) { TEST_IGNORE_MESSAGE("not yet"); }

int main(void) {
	UNITY_BEGIN();
	RUN_TEST(test_add);
	RUN_TEST(test_fault);
	RUN_TEST(test_sub);
	RUN_TEST(test_ignored);
	return UNITY_END();
}
