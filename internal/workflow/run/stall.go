package run

import (
	"fmt"
	"time"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/config"
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

// limitOf names the time limit a run, build or test runs under, for the
// verdict of one that runs out of it (capture.NameLimit): the caller's
// timeout_s, the session's, the config's, or the built-in one; each says
// what to raise.
func limitOf(c *catalog.Call, given duration.Seconds, cfg *config.Config) string {
	return c.Limit("timeout_s", given > 0, cfg.RunTimeoutKey()).String()
}

// runLimitHelp is what --help says of run's, build's and test's
// timeout_s: its default here (the schema's description, in tools/list,
// has no room for it).
func (h *handler) runLimitHelp() string {
	cfg := h.svc.Config
	from := "built in; the config's timeouts.run changes it"
	if cfg.Timeouts.Run > 0 {
		from = "the config's timeouts.run"
	}
	return fmt.Sprintf("seconds; default %g (%s), or the session default timeout_s", cfg.RunTimeout().Seconds(), from)
}
