package xcode

import (
	"errors"

	"github.com/triage-dev/triage/internal/spawn"
)

// CallerError reports whether err is one the caller fixes by changing the
// arguments or doing something first: a malformed request or destination,
// a simulator name that matches none or several, an unknown scheme, a
// simulator not booted, an app not running, a physical device not found, a developer tool that could
// not be started (no Xcode). The Apple workflows answer these as usage
// errors.
func CallerError(err error) bool {
	var (
		re *RequestError
		nf *SimulatorNotFoundError
		am *AmbiguousSimulatorError
		se *SchemeError
		nb *SimulatorNotBootedError
		nr *AppNotRunningError
		st *spawn.StartError
		dn *DeviceNotFoundError
		mn *MacAppNotRunningError
	)
	return err != nil && (errors.As(err, &re) || errors.As(err, &nf) || errors.As(err, &am) || errors.As(err, &se) ||
		errors.As(err, &nb) || errors.As(err, &nr) || errors.As(err, &st) || errors.As(err, &dn) || errors.As(err, &mn) || errors.Is(err, ErrDestination))
}
