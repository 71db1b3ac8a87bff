package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A blank token is refused at start-up (it would answer 401 to every
// client), from every source of tokens; the refusal is a usage error.
func TestServeRefusesBlankToken(t *testing.T) {
	file := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(file, []byte("good-token-0123456789\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"serve", "--http", "127.0.0.1:0", "--token", " "},
		{"serve", "--http", "127.0.0.1:0", "--token", ""},
		{"serve", "--http", "127.0.0.1:0", "--token-file", file, "--token", "\t"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), args, strings.NewReader(""), &stdout, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), "blank token") {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 naming the blank token", args, code, stderr.String())
		}
	}
	t.Setenv("TRIAGE_TOKEN", "  ")
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"serve", "--http", "127.0.0.1:0"}, strings.NewReader(""), &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "blank token") {
		t.Errorf("TRIAGE_TOKEN blank: exit %d, stderr %q", code, stderr.String())
	}
}

// An --admin-token that is blank, or that is also a client's token, is
// refused at start-up as a usage error.
func TestServeRefusesBadAdminToken(t *testing.T) {
	for _, c := range []struct {
		admin, want string
	}{
		{" ", "blank token"},
		{"", "blank token"},
		{"client-token-0123456789", "a token of its own"},
		{"root", "too short"},
	} {
		args := []string{"serve", "--http", "127.0.0.1:0", "--token", "client-token-0123456789", "--admin-token", c.admin}
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), args, strings.NewReader(""), &stdout, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 saying %q", args, code, stderr.String(), c.want)
		}
	}
}
