TEST(FooTest, DoesBar) {
  EXPECT_EQ(1, 1);
}

TEST_F(Fix, Name2) { x(); }

TYPED_TEST_P(Suite3, Name3) { y(); }

BOOST_AUTO_TEST_CASE(my_case) { z(); }

TEST_CASE("simple parse", "[tag]") {
  SECTION("a") { CHECK(1); }
}

TEST_CASE_METHOD(TApp, "ComplexOption", "[newparse]") {
  run();
}

namespace n {
TEST_CASE("in ns") { run(); }
}

INSTANTIATE_TEST_SUITE_P(P, Suite3, ::testing::Values(1, 2));

// Not tests: a class's constructor of one unnamed parameter, a function
// in lower case, a macro call ended by its semicolon before a block.
class RGB {
  RGB(Color) {}
};

wrap(a, b) { return; }

REGISTER(thing);
{
  int x = 1;
}

SCENARIO("a scenario", "[s]")
{
  GIVEN("x") { run(); }
}
