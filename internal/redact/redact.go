// Package redact hides the values of secret environment variables wherever
// triage echoes a command's environment: session defaults, debugger launch
// commands and their errors. A variable is secret when its name contains
// TOKEN, SECRET, PASSWORD or KEY, in any case; whatever its name, a value
// that looks like a credential is masked too: a URL's password
// (postgres://alice:[redacted]@db), a bearer or basic authorization, a
// private-key block.
package redact

import (
	"regexp"
	"sort"
	"strings"
	"sync"
)

// Mask replaces a secret value.
const Mask = "[redacted]"

var secretWords = []string{"TOKEN", "SECRET", "PASSWORD", "KEY"}

// IsSecretName reports whether an environment variable's value must not be
// echoed.
func IsSecretName(name string) bool {
	up := strings.ToUpper(name)
	for _, w := range secretWords {
		if strings.Contains(up, w) {
			return true
		}
	}
	return false
}

// credentials match the parts of a value that are credentials whatever the
// variable is called; each match's group 1, when present, is kept.
var credentials = sync.OnceValue(func() []*regexp.Regexp {
	return []*regexp.Regexp{
		// scheme://user:password@host: the password.
		regexp.MustCompile(`([a-zA-Z][a-zA-Z0-9+.-]*://[^/\s:@]*:)[^@\s/]+@`),
		// Authorization values: Bearer / Basic / token credentials.
		regexp.MustCompile(`(?i)\b((?:bearer|basic|token)\s+)[A-Za-z0-9._~+/=-]{8,}`),
		// PEM private-key blocks, whole.
		regexp.MustCompile(`-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)`),
	}
})

// Value masks the credentials a value holds, whatever its name: the
// password of a URL, a bearer or basic credential, a private key. Anything
// else is returned as is.
func Value(v string) string {
	for _, re := range credentials() {
		v = re.ReplaceAllStringFunc(v, func(m string) string {
			if keep := re.FindStringSubmatch(m); len(keep) > 1 {
				if re.NumSubexp() > 0 && strings.HasSuffix(m, "@") {
					return keep[1] + Mask + "@"
				}
				return keep[1] + Mask
			}
			return Mask
		})
	}
	return v
}

// Env returns env with secret values replaced by Mask. env itself is not
// changed; nil stays nil.
func Env(env map[string]string) map[string]string {
	if env == nil {
		return nil
	}
	out := make(map[string]string, len(env))
	for k, v := range env {
		if IsSecretName(k) {
			v = Mask
		}
		out[k] = Value(v)
	}
	return out
}

// Pairs redacts a list of NAME=VALUE entries (os.Environ's form).
func Pairs(kv []string) []string {
	out := make([]string, len(kv))
	for i, e := range kv {
		if name, val, ok := strings.Cut(e, "="); ok && IsSecretName(name) {
			e = name + "=" + Mask
		} else if ok {
			e = name + "=" + Value(val)
		}
		out[i] = e
	}
	return out
}

// Text replaces every occurrence of a secret value of env in s, for text
// that may quote the environment in ways no one parses (a debugger echoing
// its launch command, an error message). Longer values are replaced first,
// so a value containing another is hidden whole.
func Text(s string, env map[string]string) string {
	var vals []string
	for k, v := range env {
		if v != "" && IsSecretName(k) {
			vals = append(vals, v)
		} else if m := Value(v); m != v {
			vals = append(vals, v) // a credential-bearing value, hidden whole where quoted
		}
	}
	if len(vals) == 0 {
		return s
	}
	sort.Slice(vals, func(i, j int) bool { return len(vals[i]) > len(vals[j]) })
	pairs := make([]string, 0, 2*len(vals))
	for _, v := range vals {
		pairs = append(pairs, v, Mask)
	}
	return strings.NewReplacer(pairs...).Replace(s)
}

// Error returns err with its message passed through Text; errors.Is and
// errors.As still see the original. nil stays nil.
func Error(err error, env map[string]string) error {
	if err == nil {
		return nil
	}
	msg := Text(err.Error(), env)
	if msg == err.Error() {
		return err
	}
	return &redactedError{msg: msg, err: err}
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }
