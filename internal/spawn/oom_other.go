//go:build !linux

package spawn

// oomKills is unsupported outside Linux; macOS's jetsam leaves no counter
// we can read.
func oomKills() int64 { return -1 }
