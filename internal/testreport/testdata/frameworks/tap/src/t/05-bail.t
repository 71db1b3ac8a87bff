use strict; use warnings;
use Test::More tests => 3;
ok(1, 'connects');
BAIL_OUT('database is not running');
ok(1, 'queries');
