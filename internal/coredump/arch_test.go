package coredump

import (
	"debug/elf"
	"testing"
)

// TestArchName: the machine table cores and kernel dumps share.
func TestArchName(t *testing.T) {
	tests := []struct {
		m     elf.Machine
		class elf.Class
		data  elf.Data
		want  string
	}{
		{elf.EM_X86_64, elf.ELFCLASS64, elf.ELFDATA2LSB, "x86_64"},
		{elf.EM_AARCH64, elf.ELFCLASS64, elf.ELFDATA2LSB, "aarch64"},
		{elf.EM_RISCV, elf.ELFCLASS64, elf.ELFDATA2LSB, "riscv64"},
		{elf.EM_RISCV, elf.ELFCLASS32, elf.ELFDATA2LSB, "riscv32"},
		{elf.EM_PPC64, elf.ELFCLASS64, elf.ELFDATA2LSB, "ppc64le"},
		{elf.EM_PPC64, elf.ELFCLASS64, elf.ELFDATA2MSB, "ppc64"},
		{elf.EM_S390, elf.ELFCLASS64, elf.ELFDATA2MSB, "s390x"},
		{elf.EM_MIPS, elf.ELFCLASS32, elf.ELFDATA2MSB, "mips"},
	}
	for _, tt := range tests {
		ef := &elf.File{FileHeader: elf.FileHeader{Machine: tt.m, Class: tt.class, Data: tt.data}}
		if got := ArchName(ef); got != tt.want {
			t.Errorf("%v/%v/%v: %q, want %q", tt.m, tt.class, tt.data, got, tt.want)
		}
	}
}
