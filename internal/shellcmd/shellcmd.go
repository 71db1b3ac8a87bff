// Package shellcmd writes a suggested tool call (`dump_open {"core": "…"}`,
// written for an MCP client) as the CLI command a person pastes in a POSIX
// shell (`triage dump_open --core …`): the CLI's answers and the web
// page's next calls both use it.
package shellcmd

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
)

// suggestedCall finds `tool {"…` in an answer: a tool's name, then a JSON
// object of arguments.
var suggestedCall = regexp.MustCompile(`(^|[\s(])([a-z][a-z0-9_]*) \{["}]`)

// Rewrite rewrites every suggested call in text as a CLI command;
// what does not decode as a JSON object is left as it was.
func Rewrite(text string) string {
	var b strings.Builder
	for {
		m := suggestedCall.FindStringSubmatchIndex(text)
		if m == nil {
			b.WriteString(text)
			return b.String()
		}
		open := m[5] + 1 // the '{'
		cmd, n := shellCommand(text[m[4]:m[5]], text[open:])
		if n == 0 {
			b.WriteString(text[:open+1])
			text = text[open+1:]
			continue
		}
		b.WriteString(text[:m[4]])
		b.WriteString(cmd)
		text = text[open+n:]
	}
}

// Command is tool's call with args (a JSON object of named arguments) as
// a CLI command; false when args is not one.
func Command(tool string, args []byte) (string, bool) {
	if len(args) == 0 || string(args) == "null" {
		return "triage " + tool, true
	}
	cmd, n := shellCommand(tool, string(args))
	return cmd, n > 0 && strings.TrimSpace(string(args[n:])) == ""
}

// shellCommand reads a JSON object of arguments at the start of s and
// returns tool's command line and how many bytes of s it read (0: s does
// not start with a JSON object of named arguments). Arguments keep their
// order; a list of plain values is one --KEY per value, as the CLI reads
// repeated flags.
func shellCommand(tool, s string) (string, int) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", 0
	}
	words := []string{"triage", tool}
	for dec.More() {
		key, err := dec.Token()
		name, ok := key.(string)
		if err != nil || !ok || !argName.MatchString(name) {
			return "", 0
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return "", 0
		}
		words = append(words, flagWords(name, raw)...)
	}
	if _, err := dec.Token(); err != nil {
		return "", 0
	}
	return strings.Join(words, " "), int(dec.InputOffset())
}

var argName = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// flagWords is one argument as shell words: --KEY VALUE, quoted for a
// POSIX shell.
func flagWords(name string, raw json.RawMessage) []string {
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) == nil && len(list) > 0 {
		var words []string
		for _, v := range list {
			s, ok := plainValue(v)
			if !ok {
				return []string{"--" + name, shellQuote(string(compact(raw)))}
			}
			words = append(words, "--"+name, shellQuote(s))
		}
		return words
	}
	if s, ok := plainValue(raw); ok {
		return []string{"--" + name, shellQuote(s)}
	}
	return []string{"--" + name, shellQuote(string(compact(raw)))}
}

// plainValue is a string, number or boolean as the CLI takes it.
func plainValue(raw json.RawMessage) (string, bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	switch t := strings.TrimSpace(string(raw)); {
	case t == "true" || t == "false":
		return t, true
	case t != "" && (t[0] == '-' || t[0] >= '0' && t[0] <= '9'):
		return t, true
	}
	return "", false
}

func compact(raw json.RawMessage) []byte {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
