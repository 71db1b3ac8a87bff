package postmortem

import (
	"debug/elf"
	"encoding/hex"
	"errors"
	"fmt"
)

// ErrVmlinuxMismatch: the vmlinux is not the kernel that wrote the dump.
// crash refuses such a pair late and obscurely; drgn reads garbage.
var ErrVmlinuxMismatch = errors.New("vmlinux does not match the dump")

// KernelBuildID reads the GNU build ID of a vmlinux (or any ELF file), hex.
func KernelBuildID(vmlinux string) (string, error) {
	ef, err := elf.Open(vmlinux)
	if err != nil {
		return "", fmt.Errorf("reading build ID: %w", err)
	}
	defer ef.Close()
	// Userspace binaries keep it in .note.gnu.build-id, vmlinux in .notes.
	for _, sec := range ef.Sections {
		if sec.Type != elf.SHT_NOTE || sec.Size > maxNotesSize {
			continue
		}
		data, err := sec.Data()
		if err != nil {
			return "", fmt.Errorf("reading build ID of %s: %w", vmlinux, err)
		}
		for _, n := range parseNotes(data, ef.ByteOrder) {
			if n.name == "GNU" && n.typ == 3 { // NT_GNU_BUILD_ID
				return hex.EncodeToString(n.desc), nil
			}
		}
	}
	return "", fmt.Errorf("reading build ID of %s: no GNU build ID note", vmlinux)
}

// CheckVmlinux compares a vmlinux's build ID with the one the dump's
// VMCOREINFO records. It returns nil when they match or when the dump
// records none (nothing to compare), and an error wrapping
// ErrVmlinuxMismatch when they differ.
func CheckVmlinux(d *DumpInfo, vmlinux string) error {
	if d.BuildID == "" {
		return nil
	}
	id, err := KernelBuildID(vmlinux)
	if err != nil {
		return err
	}
	if id != d.BuildID {
		return fmt.Errorf("%w: %s has build ID %s, the dump's kernel %s (%s)", ErrVmlinuxMismatch, vmlinux, id, d.BuildID, d.OSRelease)
	}
	return nil
}
