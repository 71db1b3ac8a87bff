// Package redact hides the values of secret environment variables wherever
// triage echoes a command's environment: session defaults, debugger launch
// commands and their errors. A variable is secret when its name contains
// TOKEN, SECRET, PASSWORD or KEY, in any case.
package redact

import (
	"sort"
	"strings"
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
		out[k] = v
	}
	return out
}

// Pairs redacts a list of NAME=VALUE entries (os.Environ's form).
func Pairs(kv []string) []string {
	out := make([]string, len(kv))
	for i, e := range kv {
		if name, _, ok := strings.Cut(e, "="); ok && IsSecretName(name) {
			e = name + "=" + Mask
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
