// Package duration is the type of triage's duration arguments (timeout_s and
// the other *_s arguments, and the timeout_s session default): a number of
// seconds, validated by one rule with one error text, converted to a
// time.Duration.
//
// The rule: a finite number from 0 to a maximum; 0 (or absent) means the
// tool's default. The maximum is Max, a day, unless a tool has a lower one
// of its own (one debugger or engine command: CommandMax).
package duration

import (
	"math"
	"time"

	"github.com/triage-dev/triage/internal/fault"
)

const (
	// Max is the longest any duration argument may ask for. Nothing an agent
	// waits on within one call should run longer, and a larger number is
	// almost certainly a unit mistake (milliseconds given as seconds).
	Max = 24 * time.Hour
	// CommandMax bounds one debugger or engine command (debug_command,
	// dump_command, dump_run_script): an interactive engine that has not
	// answered within an hour is stuck.
	CommandMax = time.Hour
)

// Seconds is a duration argument as JSON and YAML carry it: a number of
// seconds. Its schema is a plain number, like a float64's.
type Seconds float64

// Check validates s as the argument name against limit (Max when limit is
// not positive or above Max).
func (s Seconds) Check(name string, limit time.Duration) error {
	limit = bound(limit)
	f := float64(s)
	if math.IsNaN(f) || f < 0 || f > limit.Seconds() {
		return fault.Usagef("%s %v: use a number of seconds between 0 and %v", name, f, limit.Seconds())
	}
	return nil
}

// Duration validates s as the argument name (see Check) and converts it;
// 0 gives def.
func (s Seconds) Duration(name string, def, limit time.Duration) (time.Duration, error) {
	if err := s.Check(name, limit); err != nil {
		return 0, err
	}
	if s == 0 {
		return def, nil
	}
	return time.Duration(float64(s) * float64(time.Second)), nil
}

// Timeout is Duration for the timeout_s argument.
func (s Seconds) Timeout(def, limit time.Duration) (time.Duration, error) {
	return s.Duration("timeout_s", def, limit)
}

func bound(limit time.Duration) time.Duration {
	if limit <= 0 || limit > Max {
		return Max
	}
	return limit
}
