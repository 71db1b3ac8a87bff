use strict; use warnings;
use Test::More tests => 3;
ok(1 + 1 == 2, 'adds');
is(lc 'ABC', 'abc', 'lowercases');
like('hello world', qr/world/, 'matches');
