package simulator

import (
	"fmt"
	"time"

	"github.com/triage-dev/triage/internal/defaults"
	"github.com/triage-dev/triage/internal/proc"
)

// Default time limits.
const (
	bootTimeout    = 3 * time.Minute
	installTimeout = 5 * time.Minute
	launchWatch    = 3 * time.Second
	maxWatch       = time.Minute
)

// timeout validates timeout_s; 0 means def.
func timeout(s float64, def time.Duration) (time.Duration, error) {
	if s < 0 || s > proc.MaxTimeout.Seconds() {
		return 0, &defaults.UsageError{Msg: fmt.Sprintf("timeout_s %v: use a number of seconds between 0 and %v", s, proc.MaxTimeout.Seconds())}
	}
	if s == 0 {
		return def, nil
	}
	return time.Duration(s * float64(time.Second)), nil
}
