# triage's job agent: one per ssh connection, started once by a triage on
# another host over one ssh session. It runs the jobs triage sends, each
# forked and exec'd here in a process group of its own, and frames their
# output and exit back over its standard output, so a job costs one fork
# here and no new ssh session.
#
# argv:  WINDOW: the bytes of a job's output in flight before triage's
#        credit (flow control: a job that prints a lot never holds up the
#        others; triage grants credit as its sinks take the output).
# out:   MAGIC line ("\x1etriage-agent 1\n": what a login shell prints
#        before it is skipped), then frames.
# Frames, both ways: TYPE (1 byte), JOB (uint32 big-endian), LENGTH
# (uint32), LENGTH bytes.
#   in:  S start: (uint32 length, bytes) strings: DIR CORE STDIN
#          NSET NAME=VALUE... NUNSET NAME... PROGRAM ARGS...
#        K end the job's group: SIGTERM now, SIGKILL after GRACE_MS
#        C credit: BYTES more of the job's output may be sent
#   out: P the program runs (its pid); O output (stdout and stderr as one
#        stream, as 2>&1 gives); X its end, "\x1fKEY=VALUE" fields (pid,
#        status, exe, cwd, orphans, pattern, uses_pid; or exec: why it
#        could not start). No frame follows a job's X.
# The end of its input means triage is gone (the connection dropped, or it
# closed it): the agent exits, and its watchdog, a child in a process group
# of its own that outlives the agent however it ends (SIGKILL included),
# ends every job's group: SIGTERM, SIGKILL after 2 s.
use strict;
use POSIX ();    # loaded once per connection, not per job
use Fcntl ();

my $window = int(shift @ARGV) || 262144;
my $hz     = POSIX::sysconf(POSIX::_SC_CLK_TCK()) || 100;
sub now { (POSIX::times())[0] / $hz }
$0 = 'triage-agent';
$SIG{PIPE} = 'IGNORE';    # a dead reader is an error from syswrite

sub endgroups {
    my @g = @_;
    kill 'TERM', map { -$_ } @g;
    kill 'CONT', map { -$_ } @g;
    for (1 .. 40) { last unless grep { kill 0, -$_ } @g; select undef, undef, undef, 0.05 }
    kill 'KILL', map { -$_ } @g;
}

# The watchdog reads "+PGID" and "-PGID" lines; at the end of them it ends
# the groups still listed.
pipe(my $wdr, my $wdw) or die "pipe: $!";
my $wd = fork // die "fork: $!";
if ($wd == 0) {
    close $wdw;
    setpgrp(0, 0);    # a signal to the agent's group spares it
    $0 = 'triage-watch';
    open STDIN,  '<', '/dev/null';
    open STDOUT, '>', '/dev/null';    # the session ends with the agent
    open STDERR, '>', '/dev/null';
    $SIG{HUP} = 'IGNORE';
    my (%g, $buf);
    $buf = '';
    while (sysread $wdr, $buf, 4096, length $buf) {
        while ($buf =~ s/\A([+-])(\d+)\n//) { $1 eq '+' ? ($g{$2} = 1) : delete $g{$2} }
    }
    endgroups(keys %g) if %g;
    POSIX::_exit(0);
}
close $wdr;
sub watch { syswrite $wdw, "$_[0]\n" }

sub gone { exit 0 }    # the watchdog ends what runs
$SIG{HUP} = $SIG{TERM} = \&gone;

sub frame {
    my ($t, $id, $p) = @_;
    my $b = pack('a N N', $t, $id, length $p) . $p;
    while (length $b) {
        my $w = syswrite STDOUT, $b;
        if (!defined $w) { next if $! == POSIX::EINTR(); gone() }
        substr($b, 0, $w) = '';
    }
}

sub clean { my $s = shift // ''; $s =~ s/[\x00-\x1f]/ /g; $s }

sub nonblock {
    my $fh = shift;
    my $fl = fcntl($fh, Fcntl::F_GETFL(), 0);
    fcntl($fh, Fcntl::F_SETFL(), $fl | Fcntl::O_NONBLOCK());
}

pipe(my $sigr, my $sigw) or die "pipe: $!";
nonblock($sigw);
$SIG{CHLD} = sub { syswrite $sigw, 'x' };

my %jobs;    # id -> job

# cwd is the working directory, as the kernel resolves it (Linux), else by
# Cwd.
sub cwd {
    my $d = readlink '/proc/self/cwd';
    return $d if defined $d;
    require Cwd;
    return Cwd::getcwd();
}

# child runs in the forked job: it reports on $info "K" EXE NUL CWD before
# exec, or "E" and why it cannot start.
sub child {
    my ($f, $inr, $outw, $info) = @_;
    my ($dir, $core, undef, $nset) = splice @$f, 0, 4;
    my @set   = splice @$f, 0, $nset;
    my $nun   = shift @$f;
    my @unset = splice @$f, 0, $nun;
    my @argv  = @$f;
    my $fail  = sub { syswrite $info, "E" . shift; POSIX::_exit(127) };
    setpgrp(0, 0);
    $SIG{$_} = 'DEFAULT' for qw(PIPE CHLD HUP TERM);
    open STDIN,  '<&', $inr;
    open STDOUT, '>&', $outw;
    open STDERR, '>&', $outw;
    if ($dir ne '') { chdir $dir or $fail->("working directory $dir: $!") }
    for (@set) { my ($k, $v) = split /=/, $_, 2; $ENV{$k} = $v }
    delete $ENV{$_} for @unset;
    my $exe = $argv[0];
    if ($exe !~ m{/}) {
        my $found;
        for my $d (split /:/, $ENV{PATH} // '') {
            my $p = ($d eq '' ? '.' : $d) . "/$exe";
            if (-f $p && -x _) { $found = $p; last }
        }
        $fail->("$exe: not found in PATH") unless defined $found;
        $exe = $found;
    }
    $fail->("$exe: $!") unless -e $exe;
    $fail->("$exe: is a directory") if -d _;
    $fail->("$exe: not executable") unless -x _;
    my $cwd = cwd();
    $exe = "$cwd/$exe" if $exe !~ m{^/};
    syswrite $info, "K$exe\0$cwd\0";
    # The agent's core limit is the hard one; a job that wants none lowers
    # its own through sh (perl has no setrlimit), which then execs it.
    if (!$core) {
        @argv = ('sh', '-c', 'ulimit -S -c 0 2>/dev/null; exec "$@"', 'sh', $exe, @argv[1 .. $#argv]);
        $exe = '/bin/sh';
    }
    { no warnings "exec"; exec { $exe } @argv; }
    $fail->("$exe: $!");
}

sub start {
    my ($id, $p) = @_;
    my @f = unpack '(N/a*)*', $p;
    my $j = { id => $id, credit => $window, sent => 0, inbuf => $f[2] };
    pipe(my $inr,   my $inw)   or return frame('X', $id, "\x1fexec=pipe: $!");
    pipe(my $outr,  my $outw)  or return frame('X', $id, "\x1fexec=pipe: $!");
    pipe(my $infor, my $infow) or return frame('X', $id, "\x1fexec=pipe: $!");
    my $pid = fork // return frame('X', $id, "\x1fexec=fork: $!");
    child(\@f, $inr, $outw, $infow) if $pid == 0;
    setpgrp($pid, $pid);    # as the child does: a K cannot miss the group
    watch("+$pid");
    close $_ for $inr, $outw, $infow;
    nonblock($_) for $inw, $outr;
    @$j{qw(pid in out info)} = ($pid, $inw, $outr, $infor);
    $j->{infobuf} = '';
    close delete $j->{in} if $j->{inbuf} eq '';
    $jobs{$id} = $j;
}

sub request {
    my ($t, $id, $p) = @_;
    return start($id, $p) if $t eq 'S';
    my $j = $jobs{$id} or return;    # it has ended: nothing to do
    if ($t eq 'C') { $j->{credit} += $p; return }
    if ($t eq 'K' && !defined $j->{status} && !defined $j->{kill_at}) {
        kill 'TERM', -$j->{pid};
        kill 'CONT', -$j->{pid};    # a stopped process acts on SIGTERM once continued
        $j->{kill_at} = now() + $p / 1000;
    }
}

my $ibuf = '';

sub input {
    my $r = sysread STDIN, $ibuf, 65536, length $ibuf;
    if (!$r) { return if !defined $r && $! == POSIX::EINTR(); gone() }
    while (length($ibuf) >= 9) {
        my ($t, $id, $n) = unpack 'a N N', $ibuf;
        last if length($ibuf) < 9 + $n;
        my $p = substr $ibuf, 9, $n;
        substr($ibuf, 0, 9 + $n) = '';
        request($t, $id, $p);
    }
}

# info reads what the child said before its exec; at its end the program
# runs (P) or could not start.
sub info {
    my $j = shift;
    my $r = sysread $j->{info}, $j->{infobuf}, 4096, length $j->{infobuf};
    return if $r || (!defined $r && $! == POSIX::EINTR());
    close delete $j->{info};
    # "K" EXE NUL CWD NUL, then "E" WHY if the exec failed (a cwd is
    # absolute: no "E" follows a NUL but the failure's).
    if ($j->{infobuf} =~ /(?:\A|\0)E(.*)\z/s) {
        $j->{execerr} = $1;
    } elsif ($j->{infobuf} =~ /\AK([^\0]*)\0([^\0]*)\0\z/) {
        @$j{qw(exe cwd)} = ($1, $2);
        frame('P', $j->{id}, $j->{pid});
    } else {
        $j->{execerr} = 'the program did not start (it died before its exec)';
    }
}

# output passes on what the program printed, within the job's credit
# (all that is there when $all: the job has ended).
sub output {
    my ($j, $all) = @_;
    my $total = 0;
    while (1) {
        my $room = $all ? 65536 : $j->{credit} - $j->{sent};
        return if $room <= 0;
        my $r = sysread $j->{out}, my $b, $room > 65536 ? 65536 : $room;
        if ($r) {
            frame('O', $j->{id}, $b);
            $j->{sent} += $r;
            $total += $r;
            return if !$all || $total >= 1048576;    # one read a turn: fair to the others
            next;
        }
        return if !defined $r && ($! == POSIX::EINTR() || $! == POSIX::EAGAIN());
        close delete $j->{out};    # end of file (or an error)
        return;
    }
}

sub feed {
    my $j = shift;
    my $w = syswrite $j->{in}, $j->{inbuf};
    if (defined $w) { substr($j->{inbuf}, 0, $w) = '' }
    elsif ($! == POSIX::EAGAIN() || $! == POSIX::EINTR()) { return }
    else { $j->{inbuf} = '' }
    close delete $j->{in} if $j->{inbuf} eq '';
}

# finish reports a job whose leader was reaped: what it left in its group
# is killed (orphans), the rest of its output passed on.
sub finish {
    my $j = shift;
    my $pid = $j->{pid};
    my %f;
    if (defined $j->{execerr}) {
        %f = (exec => $j->{execerr});
    } else {
        my $orphans = 0;
        if (kill 0, -$pid) { kill 'KILL', -$pid; $orphans = 1 }
        %f = (pid => $pid, status => $j->{status}, exe => $j->{exe}, cwd => $j->{cwd}, orphans => $orphans);
        if ($j->{status} & 127) {
            for (['pattern', 'core_pattern'], ['uses_pid', 'core_uses_pid']) {
                if (open my $fh, '<', "/proc/sys/kernel/$_->[1]") { $f{ $_->[0] } = <$fh> }
            }
        }
    }
    output($j, 1) if $j->{out};
    close $j->{$_} for grep { $j->{$_} } qw(in out info);
    watch("-$pid");
    delete $jobs{ $j->{id} };
    frame('X', $j->{id}, join '', map { "\x1f$_=" . clean($f{$_}) } sort keys %f);
}

sub reap {
    while ((my $pid = waitpid(-1, POSIX::WNOHANG())) > 0) {
        my $st = $?;
        for my $j (values %jobs) {
            next unless $j->{pid} == $pid;
            @$j{qw(status reaped_at)} = ($st, now());
            delete $j->{kill_at};
        }
    }
}

# step ends what is due: a job whose leader was reaped once its output
# ended and its group is gone, or half a second after (what it left
# running holds the output open: it is killed, as a local run's is); the
# SIGKILL of a job whose grace is over.
sub step {
    my $t    = now();
    my $wait = 1;    # bounds a SIGCHLD that came just before select
    for my $j (values %jobs) {
        if (defined $j->{status}) {
            next if $j->{info};
            if ((!$j->{out} && !kill(0, -$j->{pid})) || $t >= $j->{reaped_at} + 0.5) { finish($j); next }
            $wait = 0.05 if $wait > 0.05;
        } elsif (defined $j->{kill_at}) {
            if ($t >= $j->{kill_at}) { kill 'KILL', -$j->{pid}; next }
            my $left = $j->{kill_at} - $t;
            $wait = $left if $left < $wait;
        }
    }
    return $wait < 0.01 ? 0.01 : $wait;
}

syswrite STDOUT, "\x1etriage-agent 1\n";
my $wait = 1;
while (1) {
    my ($rin, $win) = ('', '');
    vec($rin, 0, 1) = 1;
    vec($rin, fileno $sigr, 1) = 1;
    for my $j (values %jobs) {
        vec($rin, fileno $j->{info}, 1) = 1 if $j->{info};
        vec($rin, fileno $j->{out}, 1)  = 1 if $j->{out} && !$j->{info} && $j->{sent} < $j->{credit};
        vec($win, fileno $j->{in}, 1)   = 1 if $j->{in};
    }
    my $n = select(my $rout = $rin, my $wout = $win, undef, $wait);
    if ($n > 0) {
        sysread $sigr, my $b, 64 if vec($rout, fileno $sigr, 1);
        input() if vec($rout, 0, 1);
        for my $j (values %jobs) {
            info($j)   if $j->{info} && vec($rout, fileno $j->{info}, 1);
            output($j) if $j->{out}  && !$j->{info} && vec($rout, fileno $j->{out}, 1);
            feed($j)   if $j->{in}   && vec($wout, fileno $j->{in}, 1);
        }
    }
    reap();
    $wait = step();
}
