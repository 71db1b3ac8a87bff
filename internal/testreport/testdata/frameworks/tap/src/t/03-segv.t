exec './crash/segv' or die "exec: $!";
