# triage's job wrapper: runs one program on this host for a triage on
# another and tells it exactly how the program ended (ssh's own exit code
# cannot: a signal there is status 255, which is also ssh failing).
#
# argv:  NONCE DIR NSET NAME=VALUE... NUNSET NAME... PROGRAM ARGS...
# stdin: "LENGTH\n", LENGTH bytes for the program's standard input, then
#        held open by triage: end of file means triage is gone (the call
#        was cancelled or timed out), and the program's process group is
#        ended.
# out:   the program's stdout and stderr as one stream (as 2>&1 gives),
#        then one line: "\x1e" NONCE, then "\x1fKEY=VALUE" fields.
use strict; # no warnings, no Cwd until needed: each costs start-up time

$| = 1;
use constant WNOHANG => 1; # Linux and the BSDs; POSIX.pm costs a start-up
my ($nonce, $dir) = splice @ARGV, 0, 2;
my $nset = shift @ARGV;
my @set = splice @ARGV, 0, $nset;
my $nunset = shift @ARGV;
my @unset = splice @ARGV, 0, $nunset;
my @argv = @ARGV;

sub clean { my $s = shift // ''; $s =~ s/[\x00-\x1f]/ /g; $s }

sub mark {
    my %f = @_;
    print "\x1e$nonce", (map { "\x1f$_=" . clean($f{$_}) } sort keys %f), "\n";
    exit 0;
}

# cwd is the working directory, as the kernel resolves it (Linux), else by
# Cwd.
sub cwd {
    my $d = readlink '/proc/self/cwd';
    return $d if defined $d;
    require Cwd;
    return Cwd::getcwd();
}

sub readn {
    my ($fh, $want) = @_;
    my $buf = '';
    while (length($buf) < $want) {
        my $r = sysread($fh, $buf, $want - length($buf), length($buf));
        last unless $r;
    }
    return $buf;
}

my $hdr = '';
while ($hdr !~ /\n\z/) { sysread(STDIN, $hdr, 1, length $hdr) or exit 0 }
my $input = readn(\*STDIN, int($hdr));

if ($dir ne '') { chdir $dir or mark(exec => "working directory $dir: $!") }
for (@set) { my ($k, $v) = split /=/, $_, 2; $ENV{$k} = $v }
delete $ENV{$_} for @unset;

my $exe = $argv[0];
if ($exe !~ m{/}) {
    my $found;
    for my $d (split /:/, $ENV{PATH} // '') {
        my $p = ($d eq '' ? '.' : $d) . "/$exe";
        if (-f $p && -x _) { $found = $p; last }
    }
    mark(exec => "$exe: not found in PATH") unless defined $found;
    $exe = $found;
}
mark(exec => "$exe: $!") unless -e $exe;
mark(exec => "$exe: is a directory") if -d _;
mark(exec => "$exe: not executable") unless -x _;
$exe = cwd() . "/$exe" if $exe !~ m{^/};

pipe(my $sigr, my $sigw) or mark(exec => "pipe: $!");
$SIG{CHLD} = sub { syswrite $sigw, 'x' };
pipe(my $inr, my $inw) or mark(exec => "pipe: $!");
pipe(my $errr, my $errw) or mark(exec => "pipe: $!"); # close-on-exec: EOF once exec succeeds
my $pid = fork // mark(exec => "fork: $!");
if ($pid == 0) {
    setpgrp(0, 0);
    open STDIN, '<&', $inr;
    open STDERR, '>&', \*STDOUT;
    $SIG{CHLD} = 'DEFAULT';
    { no warnings "exec"; exec { $exe } @argv; }
    print $errw "$!";
    exit 127;
}
close $inr;
close $errw;
my $err = readn($errr, 512);
if ($err ne '') { waitpid $pid, 0; mark(exec => "$exe: $err") }
if (length $input) {
    my $feeder = fork;
    if (defined $feeder && $feeder == 0) {
        $SIG{PIPE} = 'DEFAULT';
        syswrite $inw, $input;
        exit 0;
    }
}
close $inw;

# Wait for the program, or for triage to go.
my ($status, $open) = (undef, 1);
while (1) {
    if (waitpid($pid, WNOHANG) == $pid) { $status = $?; last }
    my $rin = '';
    vec($rin, fileno($sigr), 1) = 1;
    vec($rin, fileno(STDIN), 1) = 1 if $open;
    my $n = select(my $rout = $rin, undef, undef, 1);
    next if $n <= 0;
    sysread $sigr, my $b, 64 if vec($rout, fileno($sigr), 1);
    if ($open && vec($rout, fileno(STDIN), 1)) {
        next if sysread(STDIN, my $c, 4096);
        # triage is gone: end the program's group, SIGKILL after a grace.
        kill 'TERM', -$pid;
        for (1 .. 40) { last if waitpid($pid, WNOHANG) == $pid; select undef, undef, undef, 0.05 }
        kill 'KILL', -$pid;
        waitpid $pid, 0;
        exit 0;
    }
}

# What the program left running in its group holds the output open: it
# gets half a second to finish, as a local run's does, then is killed.
my $orphans = 0;
for (1 .. 10) { last unless kill 0, -$pid; select undef, undef, undef, 0.05 }
if (kill 0, -$pid) { kill 'KILL', -$pid; $orphans = 1 }

my %f = (pid => $pid, status => $status, exe => $exe, cwd => cwd(), orphans => $orphans);
if ($status & 127) {
    for (['pattern', 'core_pattern'], ['uses_pid', 'core_uses_pid']) {
        if (open my $fh, '<', "/proc/sys/kernel/$_->[1]") { $f{ $_->[0] } = <$fh> }
    }
}
mark(%f);
