#define BOOST_TEST_MODULE cfw
#include <boost/test/included/unit_test.hpp>
extern "C" {
#include "fault.h"
}

BOOST_AUTO_TEST_SUITE(math)
BOOST_AUTO_TEST_CASE(add) { BOOST_TEST(1 + 1 == 2); }
BOOST_AUTO_TEST_CASE(fault) {
	cfw_crash();
	BOOST_TEST((cfw_failing() ? 3 : 2) == 2);
}
BOOST_AUTO_TEST_CASE(sub) { BOOST_TEST(3 - 1 == 2); }
BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(strings)
BOOST_AUTO_TEST_CASE(same) { BOOST_CHECK_EQUAL(std::string("a"), "a"); }
BOOST_AUTO_TEST_SUITE_END()
