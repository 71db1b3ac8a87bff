package remote

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// fileTimeout bounds one file operation on a host.
const fileTimeout = 30 * time.Second

// readScript prints the first $max bytes of a file, after a line "OK" (or
// "E\treason" when it cannot be read).
const readScript = `my ($p, $max) = @ARGV; open(my $f, '<', $p) or do { print "E\t$!\n"; exit 0 };
my $b = ''; read($f, $b, $max + 1); print "OK\n", $b;`

// ReadFile reads up to max bytes of a file on the host; truncated says the
// file holds more. A file that is not there is an error naming the host.
func (c *Conn) ReadFile(ctx context.Context, path string, max int) (data []byte, truncated bool, err error) {
	out, err := c.run(ctx, []string{"perl", "-e", readScript, path, strconv.Itoa(max)}, fileTimeout, max+64)
	if err != nil {
		return nil, false, err
	}
	head, body, _ := strings.Cut(out, "\n")
	if head != "OK" {
		return nil, false, fmt.Errorf("on %s: %s: %s", c.Host, path, strings.TrimPrefix(head, "E\t"))
	}
	return []byte(body[:min(len(body), max)]), len(body) > max, nil
}

// createScript creates a file that is not there yet with the given text
// (O_EXCL: whatever is there is never overwritten).
const createScript = `use Fcntl; my ($p, $b) = @ARGV;
sysopen(my $f, $p, O_WRONLY|O_CREAT|O_EXCL, 0644) or do { print "$!\n"; exit 0 }; print $f $b; close $f or print "$!\n";`

// ErrExist: the file to create is there already.
var ErrExist = errors.New("file exists")

// CreateFile writes text into a new file on the host; a file of that name
// already there is left alone (ErrExist).
func (c *Conn) CreateFile(ctx context.Context, path, text string) error {
	out, err := c.Run(ctx, []string{"perl", "-e", createScript, path, text}, fileTimeout)
	switch msg := strings.TrimSpace(out); {
	case err != nil:
		return err
	case msg == "File exists":
		return fmt.Errorf("on %s: %s: %w", c.Host, path, ErrExist)
	case msg != "":
		return fmt.Errorf("on %s: creating %s: %s", c.Host, path, msg)
	}
	return nil
}

// RemoveFile removes a file on the host, if it is there.
func (c *Conn) RemoveFile(ctx context.Context, path string) error {
	_, err := c.Run(ctx, []string{"rm", "-f", "--", path}, fileTimeout)
	return err
}

// CoreSettings are the host's core_pattern and core_uses_pid.
func (c *Conn) CoreSettings(ctx context.Context) (pattern string, usesPid bool, err error) {
	out, err := c.Run(ctx, []string{"cat", "/proc/sys/kernel/core_pattern", "/proc/sys/kernel/core_uses_pid"}, fileTimeout)
	if err != nil {
		return "", false, err
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) < 2 {
		return "", false, fmt.Errorf("on %s: the core settings read as %q", c.Host, out)
	}
	return lines[0], strings.TrimSpace(lines[1]) != "0", nil
}
