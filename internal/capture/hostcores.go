package capture

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/coredump"
	"github.com/triage-dev/triage/internal/remote"
)

// coreWalk prints "SIZE MTIME PATH" for each regular file under the given
// directories, to a depth, whose name matches an expression and whose
// modification time is at or after a time; directories named in a list are
// not entered, and at most a number of entries are looked at in all.
// Arguments: NAME_RE SINCE DEPTH MAX_ENTRIES SKIP(comma list) DIR...
const coreWalk = `use File::Find;
my ($re, $since, $depth, $max, $skip, @dirs) = @ARGV;
my %skip = map { $_ => 1 } split /,/, $skip;
my $n = 0;
for my $top (@dirs) {
  next unless -d $top;
  my $base = ($top =~ tr!/!!);
  find({ no_chdir => 1, wanted => sub {
    my $p = $File::Find::name;
    if (++$n > $max) { $File::Find::prune = 1; return }
    my ($name) = $p =~ m!([^/]*)$!;
    if (-d $p) {
      $File::Find::prune = 1 if $p ne $top && ($skip{$name} || ($p =~ tr!/!!) - $base >= $depth);
      return;
    }
    return unless $name =~ /$re/ && -f _;
    my @s = stat _;
    print "$s[7] $s[9] $p\n" if $s[9] >= $since;
  } }, $top);
}`

// maxHostCoreEntries bounds the entries a host's core search looks at, as
// coredump bounds the local one.
const maxHostCoreEntries = 50000

// FindRemoteGroupCores is coredump.FindGroup for a run on a host: the cores
// its core_pattern (pattern) puts under q.Dirs there, to q's depth,
// written since q.Since, oldest first. Unlike here, a core's process group
// is not read (that would copy each core): the time bound and the caller's
// look at each core's program keep other runs' cores apart.
func FindRemoteGroupCores(ctx context.Context, conn *remote.Conn, pattern string, q coredump.GroupQuery) ([]coredump.Artifact, error) {
	s, err := coredump.SearchFor(pattern, q)
	if err != nil {
		return nil, fmt.Errorf("on %s: %w", conn.Host, err)
	}
	since := q.Since.Add(-time.Second).Unix()
	argv := append([]string{"perl", "-e", coreWalk, s.NameRE, strconv.FormatInt(since, 10),
		strconv.Itoa(s.Depth), strconv.Itoa(maxHostCoreEntries), strings.Join(s.Skip, ",")}, s.Dirs...)
	out, err := conn.Run(ctx, argv, 30*time.Second)
	if err != nil {
		return nil, fmt.Errorf("looking for cores on %s: %w", conn.Host, err)
	}
	var cores []coredump.Artifact
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.SplitN(line, " ", 3)
		if len(f) != 3 {
			continue
		}
		size, _ := strconv.ParseInt(f[0], 10, 64)
		mtime, _ := strconv.ParseInt(f[1], 10, 64)
		cores = append(cores, coredump.Artifact{Kind: "core", Path: f[2], Size: size, ModTime: time.Unix(mtime, 0), Note: "on " + conn.Host})
	}
	sort.SliceStable(cores, func(i, j int) bool { return cores[i].ModTime.Before(cores[j].ModTime) })
	return cores, nil
}
