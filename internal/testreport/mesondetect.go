package testreport

import "bytes"

// isMesonOutput finds meson in a sample: a result line (its status maybe
// coloured, after a terminal's erased progress line), the tally's first
// two lines, or the failed rebuild before any test. A CTest line, "1/3
// Test #1: a .....   Passed    0.01 sec", has no result word of meson's.
// Only a line that starts as "N/M " is matched against the result line's
// pattern, which keeps a sample of another tool's well under a
// millisecond.
func isMesonOutput(sample []byte) bool {
	prevOk := false
	for len(sample) > 0 {
		line := sample
		if i := bytes.IndexByte(sample, '\n'); i >= 0 {
			line, sample = sample[:i], sample[i+1:]
		} else {
			sample = nil
		}
		if i := bytes.LastIndex(line, []byte("\x1b[K")); i >= 0 {
			line = line[i+3:] // after a progress line the terminal erased
		}
		line = bytes.TrimRight(line, "\r")
		t := bytes.TrimLeft(line, " ")
		switch {
		case prevOk && (bytes.HasPrefix(t, []byte("Expected Fail:")) || bytes.HasPrefix(t, []byte("Fail:"))):
			return true
		case bytes.HasPrefix(t, []byte("Could not rebuild ")):
			return true
		case len(t) > 0 && isDigit(t[0]) && startsTestNumber(t):
			if mesonResultRE().MatchString(stripANSI(string(line))) {
				return true
			}
		}
		prevOk = bytes.HasPrefix(t, []byte("Ok:")) && mesonTallyRE().Match(t)
	}
	return false
}

// startsTestNumber reports whether l starts as "N/M ".
func startsTestNumber(l []byte) bool {
	i := 0
	for i < len(l) && isDigit(l[i]) {
		i++
	}
	if i == 0 || i == len(l) || l[i] != '/' {
		return false
	}
	j := i + 1
	for j < len(l) && isDigit(l[j]) {
		j++
	}
	return j > i+1 && j < len(l) && l[j] == ' '
}
