use strict; use warnings;
use Test::More;
ok(1, 'first passes');
is(2 + 2, 5, 'two and two');
SKIP: {
    skip 'no network here', 1;
    ok(0, 'talks to the network');
}
TODO: {
    local $TODO = 'not written yet';
    ok(0, 'future feature');
}
subtest 'nested' => sub {
    plan tests => 2;
    ok(1, 'inner one');
    ok(0, 'inner two');
};
ok(1, 'last');
done_testing();
