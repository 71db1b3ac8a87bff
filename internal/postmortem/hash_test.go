package postmortem

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// sparseFile makes a file of size bytes (holes read as zeros) with b written at off.
func sparseFile(t testing.TB, size, off int64, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "dump")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	if b != nil {
		if _, err := f.WriteAt(b, off); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

func TestContentHash(t *testing.T) {
	const big = HashPrefixLen + 4096
	hash := func(p string) string {
		t.Helper()
		h, err := ContentHash(p)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	base := hash(sparseFile(t, big, 0, nil))
	if len(base) != 64 {
		t.Fatalf("hash %q is not hex SHA-256", base)
	}
	t.Run("same content elsewhere", func(t *testing.T) {
		if h := hash(sparseFile(t, big, 0, nil)); h != base {
			t.Errorf("copy hashes %s, original %s", h, base)
		}
	})
	t.Run("a byte differs in the prefix", func(t *testing.T) {
		if hash(sparseFile(t, big, HashPrefixLen-1, []byte{1})) == base {
			t.Error("change inside the hashed prefix not seen")
		}
	})
	t.Run("a byte differs past the prefix", func(t *testing.T) {
		// Documented: only the prefix and the size are hashed.
		if hash(sparseFile(t, big, HashPrefixLen, []byte{1})) != base {
			t.Error("change past the prefix changed the hash")
		}
	})
	t.Run("size differs past the prefix", func(t *testing.T) {
		if hash(sparseFile(t, big+1, 0, nil)) == base {
			t.Error("size change not seen")
		}
	})
	t.Run("small files differ by size alone", func(t *testing.T) {
		if hash(sparseFile(t, 10, 0, nil)) == hash(sparseFile(t, 11, 0, nil)) {
			t.Error("10 and 11 zero bytes hash the same")
		}
	})
	t.Run("empty file", func(t *testing.T) {
		if hash(sparseFile(t, 0, 0, nil)) == "" {
			t.Error("empty hash")
		}
	})
	t.Run("missing", func(t *testing.T) {
		if _, err := ContentHash(filepath.Join(t.TempDir(), "nope")); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("err = %v, want fs.ErrNotExist", err)
		}
	})
	t.Run("directory", func(t *testing.T) {
		if _, err := ContentHash(t.TempDir()); err == nil {
			t.Error("hashing a directory succeeded")
		}
	})
}

func TestContentHashRealDumpNames(t *testing.T) {
	d := findRealDumps(t)
	h1, err := ContentHash(d.VMCORE)
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "renamed.vmcore")
	if err := os.Symlink(d.VMCORE, link); err != nil {
		t.Fatal(err)
	}
	h2, err := ContentHash(link)
	if err != nil {
		t.Fatal(err)
	}
	if h1 != h2 {
		t.Errorf("the same vmcore under two names: %s vs %s", h1, h2)
	}
	if d.KDUMP != "" {
		if h3, err := ContentHash(d.KDUMP); err != nil || h3 == h1 {
			t.Errorf("kdump form of the same panic: %s, %v; want a different hash", h3, err)
		}
	}
}

// BenchmarkContentHash measures identifying a large dump: the cost is
// bounded by the 64 MiB prefix whatever the file's size.
func BenchmarkContentHash(b *testing.B) {
	p := sparseFile(b, 4<<30, 0, []byte("KDUMP   "))
	b.SetBytes(HashPrefixLen)
	for b.Loop() {
		if _, err := ContentHash(p); err != nil {
			b.Fatal(err)
		}
	}
}
