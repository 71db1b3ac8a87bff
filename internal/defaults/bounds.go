package defaults

import (
	"github.com/triage-dev/triage/internal/fault"
)

// A profile's env is bounded when set, not when shown: every later session
// call answers it whole and every tool call that uses it carries it. The
// answers' bound (internal/jsoncut) cuts long values but not an object's
// keys, so a client that set 450,000 variables made each of those answers
// megabytes (and the server hold them). Within these bounds the keys, each
// value cut to its first bytes, fit an answer's structured budget (64 KiB).
const (
	// MaxEnvKeys bounds the environment variables a profile sets: far more
	// than a build or run needs.
	MaxEnvKeys = 256
	// MaxEnvNameBytes bounds one variable's name.
	MaxEnvNameBytes = 128
	// MaxEnvBytes bounds names and values together: what Linux lets a
	// program start with (ARG_MAX's usual 2 MiB, argv included).
	MaxEnvBytes = 2 << 20
)

// checkBounds refuses an env over the bounds; what names the values: those
// a call gave, or a profile after it.
func (v Values) checkBounds(what string) error {
	if n := len(v.Env); n > MaxEnvKeys {
		return fault.Usagef("%s: env has %d variables, over the bound of %d: set the few a build or run needs", what, n, MaxEnvKeys)
	}
	size := 0
	for k, val := range v.Env {
		if len(k) > MaxEnvNameBytes {
			return fault.Usagef("%s: env name %.40q… is %d bytes, over the bound of %d", what, k, len(k), MaxEnvNameBytes)
		}
		size += len(k) + len(val)
	}
	if size > MaxEnvBytes {
		return fault.Usagef("%s: env is %d bytes, over the bound of %d (2 MiB)", what, size, MaxEnvBytes)
	}
	return nil
}
