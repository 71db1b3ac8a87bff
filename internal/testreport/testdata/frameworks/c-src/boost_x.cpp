#define BOOST_TEST_MODULE extra
#include <boost/test/included/unit_test.hpp>
#include <stdexcept>
#include <vector>

BOOST_AUTO_TEST_CASE(top_level) { BOOST_TEST(true); }
BOOST_AUTO_TEST_SUITE(outer)
BOOST_AUTO_TEST_SUITE(inner)
BOOST_AUTO_TEST_CASE(requires) { BOOST_REQUIRE_EQUAL(1, 2); BOOST_TEST(true); }
BOOST_AUTO_TEST_CASE(throws) { throw std::runtime_error("boom"); }
BOOST_AUTO_TEST_CASE(collections) {
	std::vector<int> a{1, 2}, b{1, 3};
	BOOST_CHECK_EQUAL_COLLECTIONS(a.begin(), a.end(), b.begin(), b.end());
}
BOOST_AUTO_TEST_CASE(off, *boost::unit_test::disabled()) { BOOST_TEST(false); }
BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
