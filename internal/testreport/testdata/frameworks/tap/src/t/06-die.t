use strict; use warnings;
use Test::More tests => 3;
ok(1, 'loads');
die "uncaught exception: cannot open config\n";
