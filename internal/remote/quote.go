package remote

import (
	"errors"
	"fmt"
	"path"
	"strings"
)

// ErrBadHost: an ssh_host that ssh would read as something else (an option,
// several words) or that is empty.
var ErrBadHost = errors.New("bad ssh host")

// CheckHost refuses a host name ssh would not take as one host: empty, a
// leading '-' (an option), whitespace or control characters.
func CheckHost(host string) error {
	if host == "" {
		return fmt.Errorf("%w: empty", ErrBadHost)
	}
	if strings.HasPrefix(host, "-") {
		return fmt.Errorf("%w %q: starts with '-'", ErrBadHost, host)
	}
	for _, r := range host {
		if r <= ' ' || r == 0x7f {
			return fmt.Errorf("%w %q: holds whitespace or a control character", ErrBadHost, host)
		}
	}
	return nil
}

// Command joins argv into the one string ssh hands to the remote user's
// shell, each word single-quoted there when it needs to be: a path with
// spaces or shell metacharacters reaches the program as one argument,
// never as shell syntax.
func Command(argv []string) string {
	words := make([]string, len(argv))
	for i, a := range argv {
		words[i] = Quote(a)
	}
	return strings.Join(words, " ")
}

// Quote quotes s for a POSIX shell.
func Quote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Dir is the working directory on a host for cwd and project_dir as given
// (argpath.Base's rule with the host's paths, which are never resolved
// here): cwd, taken in project_dir when relative; "" is the remote user's
// home directory.
func Dir(cwd, projectDir string) string {
	switch {
	case cwd == "":
		return projectDir
	case path.IsAbs(cwd) || projectDir == "":
		return cwd
	}
	return path.Join(projectDir, cwd)
}
