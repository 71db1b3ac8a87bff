// Package services holds the long-lived state one triage process shares across
// tool calls: configuration, session defaults, and (as workflows need them) the
// output store and the managers of processes, debugger and dump sessions.
//
// A Set is built once by the command line (cmd/triage) and handed to every
// workflow; workflows reach domain packages through it and never build their own.
package services

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/triage-dev/triage/internal/config"
	"github.com/triage-dev/triage/internal/defaults"
	"github.com/triage-dev/triage/internal/doctor"
)

// Set is the shared state of one triage process.
type Set struct {
	Config   *config.Config
	Defaults *defaults.Store
	Log      *slog.Logger
	// Version describes this build.
	Version string
	// EnabledWorkflows are the workflows the server registered, in order.
	EnabledWorkflows []string

	closers []func() error
}

// New builds the services for cfg.
func New(cfg *config.Config, log *slog.Logger, version string) (*Set, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ds, err := defaults.NewStore(cfg.AllProfiles(), cfg.Profile)
	if err != nil {
		return nil, err
	}
	return &Set{Config: cfg, Defaults: ds, Log: log, Version: version}, nil
}

// OnClose registers f to run at Close, in reverse order of registration.
func (s *Set) OnClose(f func() error) { s.closers = append(s.closers, f) }

// Close releases everything the set owns: sessions are disposed and children
// reaped. It is safe to call more than once.
func (s *Set) Close() error {
	var errs []error
	for i := len(s.closers) - 1; i >= 0; i-- {
		errs = append(errs, s.closers[i]())
	}
	s.closers = nil
	return errors.Join(errs...)
}

// ConfigPathForWrite is where persisted defaults go: the config file in effect,
// or a new .triage/config.yaml in the working directory.
func (s *Set) ConfigPathForWrite() (string, error) {
	if s.Config.Path != "" {
		return s.Config.Path, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	return filepath.Join(wd, config.FileName), nil
}

// StoreHealth reports the output store's path and state.
func (s *Set) StoreHealth(ctx context.Context) doctor.Store {
	return doctor.Store{Path: s.Config.Store.Path, Status: "not opened"}
}
