package run

import (
	"time"

	"github.com/triage-dev/triage/internal/duration"
)

// DefaultStall is how long a run may show no progress (no output, no CPU
// time, every thread blocked) before it ends as HUNG: long enough that a
// program waiting on anything real has moved, short beside the
// ten-minute time limit an agent would otherwise wait out.
const DefaultStall = 30 * time.Second

// stallLimit is stall_s as a duration: absent is DefaultStall, 0 turns
// the watch off.
func stallLimit(s *duration.Seconds) (time.Duration, error) {
	if s == nil {
		return DefaultStall, nil
	}
	return s.Duration("stall_s", 0, 0)
}
