package remote

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Bounds of a Snapshot: what one file and the whole answer may hold.
const (
	maxSnapshotFile    = 1 << 20
	maxSnapshotEntries = 10000
	snapshotTimeout    = 30 * time.Second
)

// snapshotScript lists a directory's entries with their types and prints
// the named files in it, each bounded; a name holding a newline or a tab is
// left out (it cannot be a file planning reads).
const snapshotScript = `my ($dir, $max, $cap, @want) = @ARGV;
unless (-d $dir) { print "E\t", (-e _ ? "not a directory" : "no such directory"), "\n"; exit 0 }
opendir(my $d, $dir) or do { print "E\t$!\n"; exit 0 };
print "D\n"; my $n = 0;
for my $e (sort readdir $d) {
  next if $e eq '.' || $e eq '..' || $e =~ /[\t\n]/; last if ++$n > $cap;
  my $p = "$dir/$e"; print "N\t", (-d $p ? "d" : -f _ ? "f" : "o"), "\t$e\n";
}
for my $w (@want) {
  my $p = "$dir/$w"; next unless -f $p; open(my $f, '<', $p) or next;
  my $b = ''; read($f, $b, $max); print "F\t", length($b), "\t$w\n", $b, "\n";
}`

// Snapshot is what planning a build or test needs of a project directory
// on a host, read by one command over the connection: the directory's
// entries with their types, and the contents (the first MiB) of the few
// files planning reads. It answers Stat, ReadDir and Open for the
// directory and its entries (as toolchain.Files); anything else does not
// exist.
type Snapshot struct {
	Host    string
	Dir     string // absolute, as given
	Entries map[string]fs.FileMode
	Files   map[string][]byte
}

// DirError: a project directory a host does not have (or not as one).
type DirError struct{ Host, Dir, Reason string }

func (e *DirError) Error() string {
	return fmt.Sprintf("project_dir %s on %s: %s", e.Dir, e.Host, e.Reason)
}

// Snapshot reads dir (an absolute path on the host) and the named files in
// it. A directory that is not there is an error naming the host.
func (c *Conn) Snapshot(ctx context.Context, dir string, files []string) (*Snapshot, error) {
	if !path.IsAbs(dir) {
		return nil, &DirError{Host: c.Host, Dir: dir, Reason: "must be an absolute path (the host's own)"}
	}
	dir = path.Clean(dir)
	argv := append([]string{"perl", "-e", snapshotScript, dir, strconv.Itoa(maxSnapshotFile), strconv.Itoa(maxSnapshotEntries)}, files...)
	out, err := c.run(ctx, argv, snapshotTimeout, len(files)*(maxSnapshotFile+4096)+maxSnapshotEntries*300)
	if err != nil {
		return nil, fmt.Errorf("reading %s on %s: %w", dir, c.Host, err)
	}
	s := &Snapshot{Host: c.Host, Dir: dir, Entries: map[string]fs.FileMode{}, Files: map[string][]byte{}}
	if err := s.parse(out); err != nil {
		return nil, &DirError{Host: c.Host, Dir: dir, Reason: err.Error()}
	}
	return s, nil
}

// parse reads the script's answer.
func (s *Snapshot) parse(out string) error {
	r := bufio.NewReader(strings.NewReader(out))
	head, _ := r.ReadString('\n')
	switch {
	case strings.HasPrefix(head, "E\t"):
		return errors.New(strings.TrimSpace(head[2:]))
	case head != "D\n":
		return fmt.Errorf("unexpected answer %q", head)
	}
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return nil
		}
		f := strings.SplitN(strings.TrimSuffix(line, "\n"), "\t", 3)
		if len(f) != 3 {
			return fmt.Errorf("unexpected line %q", line)
		}
		switch f[0] {
		case "N":
			s.Entries[f[2]] = map[string]fs.FileMode{"d": fs.ModeDir, "f": 0, "o": fs.ModeIrregular}[f[1]]
		case "F":
			n, _ := strconv.Atoi(f[1])
			b := make([]byte, n+1)
			if _, err := io.ReadFull(r, b); err != nil {
				return fmt.Errorf("%s: cut short", f[2])
			}
			s.Files[f[2]] = b[:n]
		}
	}
}

// entry is the name's mode and whether it is the directory or one of its
// entries.
func (s *Snapshot) entry(name string) (string, fs.FileMode, bool) {
	name = path.Clean(name)
	if name == s.Dir {
		return path.Base(name), fs.ModeDir, true
	}
	if path.Dir(name) != s.Dir {
		return "", 0, false
	}
	m, ok := s.Entries[path.Base(name)]
	return path.Base(name), m, ok
}

// Stat describes the directory or one of its entries.
func (s *Snapshot) Stat(name string) (fs.FileInfo, error) {
	base, m, ok := s.entry(name)
	if !ok {
		return nil, &fs.PathError{Op: "stat", Path: s.Host + ":" + name, Err: fs.ErrNotExist}
	}
	return fileInfo{name: base, mode: m, size: int64(len(s.Files[base]))}, nil
}

// ReadDir lists the directory's entries, sorted by name.
func (s *Snapshot) ReadDir(name string) ([]fs.DirEntry, error) {
	if path.Clean(name) != s.Dir {
		return nil, &fs.PathError{Op: "readdir", Path: s.Host + ":" + name, Err: fs.ErrNotExist}
	}
	var out []fs.DirEntry
	for n, m := range s.Entries {
		out = append(out, fs.FileInfoToDirEntry(fileInfo{name: n, mode: m}))
	}
	slices.SortFunc(out, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return out, nil
}

// Open reads a file whose contents the snapshot holds.
func (s *Snapshot) Open(name string) (io.ReadCloser, error) {
	base, m, ok := s.entry(name)
	b, read := s.Files[base]
	switch {
	case !ok || !m.IsRegular():
		return nil, &fs.PathError{Op: "open", Path: s.Host + ":" + name, Err: fs.ErrNotExist}
	case !read:
		return nil, &fs.PathError{Op: "open", Path: s.Host + ":" + name, Err: errors.New("not read from the host")}
	}
	return io.NopCloser(strings.NewReader(string(b))), nil
}

// fileInfo describes an entry of a Snapshot.
type fileInfo struct {
	name string
	mode fs.FileMode
	size int64
}

func (f fileInfo) Name() string       { return f.name }
func (f fileInfo) Size() int64        { return f.size }
func (f fileInfo) Mode() fs.FileMode  { return f.mode }
func (f fileInfo) ModTime() time.Time { return time.Time{} }
func (f fileInfo) IsDir() bool        { return f.mode.IsDir() }
func (f fileInfo) Sys() any           { return nil }
