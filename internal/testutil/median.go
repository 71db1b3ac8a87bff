package testutil

import (
	"slices"
	"time"
)

// Median is the middle of the durations a benchmark measured (the upper
// one of an even count); zero for none. d is left as it was.
func Median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}
