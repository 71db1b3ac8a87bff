package redact

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestIsSecretName(t *testing.T) {
	for name, want := range map[string]bool{
		"GITHUB_TOKEN": true, "api_key": true, "AWS_SECRET_ACCESS_KEY": true, "DbPassword": true,
		"SSH_KEY_PATH": true, "x_secret_y": true, "token": true,
		"PATH": false, "HOME": false, "RUST_BACKTRACE": false, "PASS": false, "": false,
	} {
		if got := IsSecretName(name); got != want {
			t.Errorf("IsSecretName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestEnv(t *testing.T) {
	in := map[string]string{"API_TOKEN": "t0k3n", "PATH": "/bin", "my_password": "hunter2"}
	got := Env(in)
	want := map[string]string{"API_TOKEN": Mask, "PATH": "/bin", "my_password": Mask}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Env = %v, want %v", got, want)
	}
	if in["API_TOKEN"] != "t0k3n" {
		t.Error("Env changed its argument")
	}
	if Env(nil) != nil {
		t.Error("Env(nil) != nil")
	}
}

func TestPairs(t *testing.T) {
	got := Pairs([]string{"A=1", "SECRET_X=a=b", "KEY", "NPM_TOKEN="})
	want := []string{"A=1", "SECRET_X=" + Mask, "KEY", "NPM_TOKEN=" + Mask}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Pairs = %q, want %q", got, want)
	}
}

func TestText(t *testing.T) {
	env := map[string]string{"API_KEY": "abc123", "LONG_SECRET": "xxabc123yy", "USER": "bob", "EMPTY_TOKEN": ""}
	in := `(lldb) process launch -E "API_KEY=abc123" -E "LONG_SECRET=xxabc123yy" -E USER=bob`
	got := Text(in, env)
	if strings.Contains(got, "abc123") || strings.Contains(got, "xx") {
		t.Errorf("secret left in %q", got)
	}
	if !strings.Contains(got, "USER=bob") || strings.Count(got, Mask) != 2 {
		t.Errorf("Text = %q", got)
	}
	if Text("plain", nil) != "plain" {
		t.Error("Text without env changed the text")
	}
}

func TestError(t *testing.T) {
	base := errors.New("launching: process launch -E API_KEY=abc123 failed")
	err := Error(fmt.Errorf("debug: %w", base), map[string]string{"API_KEY": "abc123"})
	if strings.Contains(err.Error(), "abc123") || !errors.Is(err, base) {
		t.Errorf("Error = %q (is base: %v)", err, errors.Is(err, base))
	}
	if Error(nil, nil) != nil {
		t.Error("Error(nil) != nil")
	}
	if e := Error(base, map[string]string{"PATH": "abc123"}); e != base {
		t.Errorf("an error without secrets was wrapped: %v", e)
	}
}

// A value that looks like a credential is masked whatever its variable is
// called: a URL's password (the rest of the URL kept, so it still says
// which database), a bearer or basic credential, a private-key block.
func TestValueShapes(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"postgres://alice:pw123@db.internal:5432/app", "postgres://alice:[redacted]@db.internal:5432/app"},
		{"https://user:p%40ss@example.test/x", "https://user:[redacted]@example.test/x"},
		{"Bearer abcdefghijklmnop", "Bearer [redacted]"},
		{"Authorization: basic dXNlcjpwYXNzd29yZA==", "Authorization: basic [redacted]"},
		{"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----\n", "[redacted]\n"},
		{"https://example.test/path", "https://example.test/path"},
		{"user@host", "user@host"},
		{"token bucket", "token bucket"},
		{"/usr/bin:/bin", "/usr/bin:/bin"},
	} {
		if got := Value(tt.in); got != tt.want {
			t.Errorf("Value(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	env := Env(map[string]string{"DB_URL": "postgres://alice:pw123@db/app", "PATH": "/bin"})
	if env["DB_URL"] != "postgres://alice:[redacted]@db/app" || env["PATH"] != "/bin" {
		t.Errorf("Env = %v", env)
	}
	if got := Text("connecting to postgres://alice:pw123@db/app failed", map[string]string{"DB_URL": "postgres://alice:pw123@db/app"}); strings.Contains(got, "pw123") {
		t.Errorf("Text left the password: %q", got)
	}
	if got := Pairs([]string{"DB_URL=mysql://root:hunter2@localhost/x"}); strings.Contains(got[0], "hunter2") {
		t.Errorf("Pairs left the password: %q", got)
	}
}
