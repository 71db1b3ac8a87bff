package postmortem

import (
	"errors"
	"fmt"
	"strings"
)

// Engine names a dump analysis engine.
type Engine string

const (
	EngineCrash Engine = "crash"
	EngineDrgn  Engine = "drgn"
	EngineGDB   Engine = "gdb"
	EngineLLDB  Engine = "lldb"
)

// Engines lists every engine, in the order they are documented to users.
var Engines = []Engine{EngineCrash, EngineDrgn, EngineGDB, EngineLLDB}

// ErrUnknownEngine: an engine name, explicit or as a command prefix, that is
// none of Engines.
var ErrUnknownEngine = errors.New("unknown engine")

// ParseEngine accepts an engine name in any case, surrounding spaces ignored.
func ParseEngine(s string) (Engine, error) {
	e := Engine(strings.ToLower(strings.TrimSpace(s)))
	for _, known := range Engines {
		if e == known {
			return e, nil
		}
	}
	return "", fmt.Errorf("%w %q (want crash, drgn, gdb or lldb)", ErrUnknownEngine, s)
}

// Kernel reports whether the engine analyses kernel dumps.
func (e Engine) Kernel() bool { return e == EngineCrash || e == EngineDrgn }
