exec './crash/short' or die "exec: $!";
