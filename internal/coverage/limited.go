package coverage

// limitedMax is how much of a tool's output a limited keeps: enough for
// the lines an error quotes (see lastLines), bounded whatever the tool
// prints.
const limitedMax = 4096

// limited keeps the first limitedMax bytes written to it: gcov's, clang's,
// llvm-profdata's and llvm-cov's stderr, and the answers to version
// questions.
type limited struct{ b []byte }

func (l *limited) Write(p []byte) (int, error) {
	if room := limitedMax - len(l.b); room > 0 {
		l.b = append(l.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func (l *limited) String() string { return string(l.b) }
