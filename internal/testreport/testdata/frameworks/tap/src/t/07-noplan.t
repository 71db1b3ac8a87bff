exec './crash/noplan' or die "exec: $!";
