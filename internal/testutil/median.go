package testutil

import (
	"slices"
	"time"
)

// Median is the middle of the durations a benchmark measured (the upper
// one of an even count), sorting d in place; zero for none.
func Median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	return d[len(d)/2]
}
