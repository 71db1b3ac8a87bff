package simulator

import (
	"time"

	"github.com/triage-dev/triage/internal/xcode"
)

// Default time limits.
const (
	bootTimeout    = xcode.BootTimeout
	installTimeout = xcode.InstallTimeout
	launchWatch    = 3 * time.Second
	maxWatch       = time.Minute
)
