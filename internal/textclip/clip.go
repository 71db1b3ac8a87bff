// Package textclip cuts text to a size without splitting a character: the one
// rule for every message, verdict line and excerpt that quotes text of any
// length.
package textclip

import (
	"strconv"
	"unicode/utf8"
)

// Prefix is the longest prefix of s of at most n bytes that ends on a rune
// boundary.
func Prefix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if n < 0 {
		n = 0
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// String is s cut to at most n bytes on a rune boundary, with "…" marking a
// cut.
func String(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return Prefix(s, n) + "…"
}

// Count is n and noun, the noun plural unless n is 1: "1 line", "3 lines".
func Count[N ~int | ~int64](n N, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.FormatInt(int64(n), 10) + " " + noun + "s"
}
