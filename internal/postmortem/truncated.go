package postmortem

import (
	"debug/elf"
	"errors"
	"fmt"
	"os"
)

// ErrTruncated: the dump file ends before the data its headers describe (an
// interrupted copy or a full disk). Engines fail on such files late and
// obscurely, or show zeroes as memory.
var ErrTruncated = errors.New("dump is truncated")

// CheckTruncated compares an ELF dump's size with the end of its last
// segment. Non-ELF dumps (the makedumpfile formats) are not checked.
func CheckTruncated(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	ef, err := elf.NewFile(f)
	if err != nil {
		return nil // not ELF: nothing to compare
	}
	st, err := f.Stat()
	if err != nil {
		return err
	}
	var end uint64
	for _, p := range ef.Progs {
		end = max(end, p.Off+p.Filesz)
	}
	if size := uint64(st.Size()); end > size {
		return fmt.Errorf("%w: %s has %d bytes but its segments end at %d (%.0f%% present)", ErrTruncated, path, size, end, 100*float64(size)/float64(end))
	}
	return nil
}
