//go:build linux && (amd64 || arm64)

package stall

import (
	"bufio"
	"strings"
	"testing"
)

func TestScanListening(t *testing.T) {
	const tcp = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:A4B1 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 4242 1 0000000000000000 100 0 0 10 0
   1: 0100007F:A4B2 0100007F:0016 01 00000000:00000000 00:00000000 00000000  1000        0 4343 1 0000000000000000 20 4 30 10 -1
`
	const unix = `Num       RefCount Protocol Flags    Type St Inode Path
0000000000000000: 00000002 00000000 00010000 0001 01 5151 /run/x.sock
0000000000000000: 00000003 00000000 00000000 0001 03 5252
`
	for _, tt := range []struct {
		name  string
		table string
		unix  bool
		inode string
		want  bool
	}{
		{"tcp LISTEN", tcp, false, "4242", true},
		{"tcp ESTABLISHED", tcp, false, "4343", false},
		{"tcp not there", tcp, false, "1", false},
		{"unix accepting", unix, true, "5151", true},
		{"unix connected", unix, true, "5252", false},
		{"short lines", "0: 1 2 0A\n\n", false, "0A", false},
	} {
		sc := bufio.NewScanner(strings.NewReader(tt.table))
		if got := scanListening(sc, tt.unix, map[string]bool{tt.inode: true}); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}
