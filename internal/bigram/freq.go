package bigram

import "strings"

// pairCommonness estimates how common the pair ab is: the product of its
// bytes' frequencies, raised for the pairs that are far more common than
// that (English digraphs, and those of paths and messages).
func pairCommonness(a, b byte) int {
	n := int(commonness(a)) * int(commonness(b))
	if commonPairs[string([]byte{a, b})] {
		n *= 4
	}
	return n
}

// commonPairs are the pairs that make up most of ordinary text, and those
// on every line of a go test -json run (its event's keys, a module path on
// github.com, "=== RUN", "--- PASS: Test (0.00s)"), which would otherwise
// anchor literals such as "double free" (its "ub") and pass all of them.
var commonPairs = func() map[string]bool {
	m := make(map[string]bool)
	for _, p := range strings.Fields(`th he in er an re on at en nd ti es or te of ed
		is it al ar st to nt ng se ha as ou io le ve co me de hi ri ro ic ne ea ra ce
		li ch ll be ma si om ur ex mp ck im pe pr ct ss ge ut il ac ec ot ed ns ca el
		ub un la`) {
		m[p] = true
	}
	for _, p := range []string{": ", " (", " P", " F"} {
		m[p] = true
	}
	return m
}()

// commonness is a byte's rough frequency, in parts per thousand, in
// typical build and test output: English words, paths, numbers and the
// punctuation of diagnostics (from letter frequencies and the logs under
// internal/logfilter/testdata). Only the order matters, and roughly: a
// pair's rarity is the product of its bytes'.
func commonness(b byte) uint8 { return freq[b] }

var freq = func() (t [256]uint8) {
	for i := range t {
		t[i] = 1 // control bytes, bytes of multi-byte UTF-8
	}
	for _, g := range []struct {
		bytes string
		freq  uint8
	}{
		{" ", 150},
		{"e", 90},
		{"t", 70},
		{"aoinsr", 55},
		{"hlcdu", 35},
		{":", 30},
		{"mfpgwyb", 20},
		{"0123456789./", 20},
		{"-\"", 15},
		{"\t,", 10},
		{"vk", 10},
		{"_=", 8},
		{"ETSAIORNCFP", 5},
		{"()", 5},
		{"[]{}", 4},
		{"BDGHJKLMQUVWXYZ", 3},
		{"xjqz", 3},
		{"*'`#!?$%&+;<>@\\^|~", 2},
	} {
		for i := 0; i < len(g.bytes); i++ {
			t[g.bytes[i]] = g.freq
		}
	}
	return t
}()
