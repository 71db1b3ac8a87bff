package postmortem

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/triage-dev/triage/internal/remote"
)

// remoteIdentity checks that a remote target's files exist on its host and
// returns the dump's identity there: a hash of the host and the dump's
// device, inode, size and modification time (GNU stat), so that reopening
// it under another path shares its session and a rewritten dump does not.
// Reading 64 MiB over the link to hash the content, as for a local dump,
// would make every open slow.
func remoteIdentity(ctx context.Context, pool *remote.Pool, t Target) (string, error) {
	if err := remote.CheckHost(t.SSHHost); err != nil {
		return "", fmt.Errorf("%w: %w", ErrBadTarget, err)
	}
	conn, err := pool.Conn(ctx, t.SSHHost)
	if err != nil {
		return "", err
	}
	dump, other := t.Vmcore, t.Vmlinux
	if !t.Kernel {
		dump, other = t.Core, t.Program
	}
	ids, err := conn.StatFiles(ctx, dump, other)
	if errors.Is(err, remote.ErrNotOnHost) || errors.Is(err, remote.ErrNotRegular) {
		return "", fmt.Errorf("%w: %w", ErrBadTarget, err)
	}
	if err != nil {
		return "", err
	}
	id := ids[0]
	sum := sha256.Sum256([]byte(t.SSHHost + "\x00" + id))
	return hex.EncodeToString(sum[:]), nil
}

// lostConnection is err restated when the engine of a remote session
// ended because its host's connection dropped.
func (s *Session) lostConnection(es *engineState, err error) error {
	es.mu.Lock()
	conn := es.conn
	es.mu.Unlock()
	if conn == nil || !conn.Dropped(time.Second) {
		return err
	}
	return fmt.Errorf("%w to %s (%v)", remote.ErrLost, s.Target.SSHHost, err)
}
