package postmortem

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"os"
)

// HashPrefixLen is how much of a dump ContentHash reads. Two dumps that agree
// on their first 64 MiB and their size are taken to be the same dump: the
// headers, notes and VMCOREINFO (or a process core's notes) live there, and a
// full read of a multi-gigabyte vmcore would make every open slow.
const HashPrefixLen = 64 << 20

// ContentHash identifies a dump for dedupe: the hex SHA-256 of its first
// HashPrefixLen bytes followed by its size as a big-endian uint64. The same
// dump under another path or name hashes the same.
func ContentHash(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("hashing dump: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("hashing dump: %w", err)
	}
	if !st.Mode().IsRegular() {
		return "", fmt.Errorf("hashing dump %s: not a regular file", path)
	}
	h := sha256.New()
	want := min(st.Size(), HashPrefixLen)
	if n, err := io.CopyN(h, f, want); err != nil {
		return "", fmt.Errorf("hashing dump %s: read %d of %d bytes: %w", path, n, want, err)
	}
	var size [8]byte
	binary.BigEndian.PutUint64(size[:], uint64(st.Size()))
	h.Write(size[:])
	return hex.EncodeToString(h.Sum(nil)), nil
}
