package simulator

import (
	"time"
)

// Default time limits.
const (
	bootTimeout    = 3 * time.Minute
	installTimeout = 5 * time.Minute
	launchWatch    = 3 * time.Second
	maxWatch       = time.Minute
)
