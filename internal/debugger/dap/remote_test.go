package dap

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/remote"
)

// dlv is refused on a remote host before anything runs there: it speaks
// DAP only over TCP.
func TestRemoteAdapterRefusesDlv(t *testing.T) {
	_, err := remoteAdapter(context.Background(), &remote.Conn{Host: "build1"}, KindDlv)
	if !errors.Is(err, ErrAdapterNotFound) || !strings.Contains(err.Error(), "on build1") || !strings.Contains(err.Error(), "lldb-dap or gdb 14+") {
		t.Errorf("dlv on a remote host: %v", err)
	}
}
