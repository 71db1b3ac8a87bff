package postmortem

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io/fs"
	"os"
	"testing"

	"github.com/triage-dev/triage/internal/coredump"
)

const testVmcoreinfo = "OSRELEASE=6.1.0-99-amd64\nBUILD-ID=00112233445566778899aabbccddeeff00112233\nPAGESIZE=4096\n"

func TestInspectSynthetic(t *testing.T) {
	prstatus := testNote{"CORE", 1, make([]byte, 336)}
	qemu := testNote{"QEMU", 0, make([]byte, 440)}
	vmci := testNote{"VMCOREINFO", 0, []byte(testVmcoreinfo)}
	kdump := kdumpFile(6, "", "x86_64", 4096, testVmcoreinfo)
	// A note whose namesz runs past the segment, then nothing parseable.
	hugeName := binary.LittleEndian.AppendUint32(nil, 1<<30)
	hugeName = append(hugeName, make([]byte, 8)...)

	tests := []struct {
		name string
		data []byte
		want DumpInfo
	}{
		{"qemu dump with vmcoreinfo", elfCore([]testNote{prstatus, qemu, vmci}, nil),
			DumpInfo{Kind: coredump.KindVmcore, Kernel: true, Producer: "qemu", Arch: "x86_64", CPUs: 1,
				VMCOREINFO: true, OSRelease: "6.1.0-99-amd64", BuildID: "00112233445566778899aabbccddeeff00112233"}},
		{"qemu dump without vmcoreinfo", elfCore([]testNote{prstatus, qemu, prstatus, qemu}, nil),
			DumpInfo{Kind: coredump.KindVmcore, Kernel: true, Producer: "qemu", Arch: "x86_64", CPUs: 2}},
		{"kdump vmcore", elfCore([]testNote{prstatus, prstatus, prstatus, vmci}, nil),
			DumpInfo{Kind: coredump.KindVmcore, Kernel: true, Producer: "kdump", Arch: "x86_64", CPUs: 3,
				VMCOREINFO: true, OSRelease: "6.1.0-99-amd64", BuildID: "00112233445566778899aabbccddeeff00112233"}},
		{"process core", elfCore([]testNote{prstatus, {"CORE", 3, make([]byte, 136)}}, nil),
			DumpInfo{Kind: coredump.KindProcessCore, Arch: "x86_64"}},
		{"note with huge namesz", elfCore(nil, hugeName),
			DumpInfo{Kind: coredump.KindProcessCore, Arch: "x86_64"}},
		{"vmcoreinfo with junk lines", elfCore([]testNote{{"VMCOREINFO", 0, []byte("=x\nno equals\nOSRELEASE=5.10\x00\r\n\x00\x00")}}, nil),
			DumpInfo{Kind: coredump.KindVmcore, Kernel: true, Producer: "kdump", Arch: "x86_64", VMCOREINFO: true, OSRelease: "5.10"}},
		{"kdump-compressed v6", kdump,
			DumpInfo{Kind: coredump.KindKdumpCompact, Kernel: true, Producer: "makedumpfile", Arch: "x86_64", CPUs: 2,
				VMCOREINFO: true, OSRelease: "6.1.0-99-amd64", BuildID: "00112233445566778899aabbccddeeff00112233"}},
		{"kdump-compressed v1 has utsname only", kdumpFile(1, "5.4.0-1-amd64", "x86_64", 4096, testVmcoreinfo),
			DumpInfo{Kind: coredump.KindKdumpCompact, Kernel: true, Producer: "makedumpfile", Arch: "x86_64", CPUs: 2, OSRelease: "5.4.0-1-amd64"}},
		{"kdump-compressed, utsname release kept when vmcoreinfo has none", kdumpFile(6, "5.4.0-1-amd64", "x86_64", 4096, "PAGESIZE=4096\n"),
			DumpInfo{Kind: coredump.KindKdumpCompact, Kernel: true, Producer: "makedumpfile", Arch: "x86_64", CPUs: 2, VMCOREINFO: true, OSRelease: "5.4.0-1-amd64"}},
		{"diskdump", append([]byte("DISKDUMP"), make([]byte, 1024)...),
			DumpInfo{Kind: coredump.KindKdumpCompact, Kernel: true, Producer: "makedumpfile"}},
		{"flattened in order", flatten(kdump, 1000, nil),
			DumpInfo{Kind: coredump.KindKdumpFlat, Kernel: true, Producer: "makedumpfile", Arch: "x86_64", CPUs: 2,
				VMCOREINFO: true, OSRelease: "6.1.0-99-amd64", BuildID: "00112233445566778899aabbccddeeff00112233"}},
		{"flattened out of order", flatten(kdump, 3000, []int{2, 0, 1}),
			DumpInfo{Kind: coredump.KindKdumpFlat, Kernel: true, Producer: "makedumpfile", Arch: "x86_64", CPUs: 2,
				VMCOREINFO: true, OSRelease: "6.1.0-99-amd64", BuildID: "00112233445566778899aabbccddeeff00112233"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeTemp(t, "dump", tt.data)
			got, err := Inspect(p)
			if err != nil {
				t.Fatalf("Inspect: %v", err)
			}
			tt.want.Path, tt.want.Size = p, int64(len(tt.data))
			if *got != tt.want {
				t.Errorf("Inspect =\n %+v\nwant\n %+v", *got, tt.want)
			}
		})
	}
}

func TestInspectErrors(t *testing.T) {
	kdump := kdumpFile(6, "", "x86_64", 4096, testVmcoreinfo)
	badBlock := bytes.Clone(kdump)
	binary.LittleEndian.PutUint32(badBlock[kdumpBlockSizeOff:], 1000)
	pastEOF := kdumpFile(6, "", "x86_64", 4096, "")
	binary.LittleEndian.PutUint64(pastEOF[4096+subVmcoreinfoOff:], 1<<40)
	binary.LittleEndian.PutUint64(pastEOF[4096+subVmcoreinfoOff+8:], 100)
	flat := flatten(kdump, 1000, nil)
	badRecord := bytes.Clone(flat)
	binary.BigEndian.PutUint64(badRecord[flatHeaderLen+8:], 1<<62)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	selfData, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name    string
		data    []byte
		wantErr error
	}{
		{"empty", nil, coredump.ErrEmpty},
		{"text", []byte("hello, not a dump\n"), coredump.ErrUnrecognizedFormat},
		{"executable", selfData, ErrNotDump},
		{"kdump block size not a power of two", badBlock, nil},
		{"kdump header cut short", kdump[:300], nil},
		{"kdump vmcoreinfo past EOF", pastEOF, nil},
		{"flattened stream cut inside a record", flat[:flatHeaderLen+100], nil},
		{"flattened stream without end record or header data", flat[:flatHeaderLen], nil},
		{"flattened record with absurd size", badRecord, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeTemp(t, "dump", tt.data)
			info, err := Inspect(p)
			if err == nil {
				t.Fatalf("Inspect = %+v, want an error", info)
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("Inspect error = %v, want %v", err, tt.wantErr)
			}
		})
	}
	t.Run("missing", func(t *testing.T) {
		if _, err := Inspect(t.TempDir() + "/nope"); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Inspect error = %v, want fs.ErrNotExist", err)
		}
	})
}

func TestDefaultEngine(t *testing.T) {
	for _, tt := range []struct {
		info DumpInfo
		want Engine
	}{
		{DumpInfo{Kind: coredump.KindVmcore, Kernel: true}, EngineCrash},
		{DumpInfo{Kind: coredump.KindProcessCore}, EngineGDB},
		{DumpInfo{Kind: coredump.KindMachOCore}, EngineLLDB},
	} {
		if got := tt.info.DefaultEngine(); got != tt.want {
			t.Errorf("%s: DefaultEngine = %s, want %s", tt.info.Kind, got, tt.want)
		}
	}
}

// TestInspectRealDumps reads the three containers of the same QEMU panic.
func TestInspectRealDumps(t *testing.T) {
	d := findRealDumps(t)
	buildID, err := KernelBuildID(d.VMLINUX)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		path     string
		kind     coredump.FileKind
		producer string
	}{
		{d.VMCORE, coredump.KindVmcore, "qemu"},
		{d.KDUMP, coredump.KindKdumpCompact, "makedumpfile"},
		{d.FLAT, coredump.KindKdumpFlat, "makedumpfile"},
	} {
		t.Run(string(tt.kind), func(t *testing.T) {
			if tt.path == "" {
				t.Skip("the cache predates kdump outputs: rerun scripts/make-vmcore.sh")
			}
			info, err := Inspect(tt.path)
			if err != nil {
				t.Fatal(err)
			}
			if info.Kind != tt.kind || !info.Kernel || info.Producer != tt.producer || !info.VMCOREINFO {
				t.Errorf("Inspect = %+v, want a %s kernel dump by %s with VMCOREINFO", info, tt.kind, tt.producer)
			}
			if d.KernelVersion != "" && info.OSRelease != d.KernelVersion {
				t.Errorf("OSRelease = %q, want %q", info.OSRelease, d.KernelVersion)
			}
			if info.BuildID != buildID || info.Arch != "x86_64" || info.CPUs != 1 {
				t.Errorf("BuildID, Arch, CPUs = %s, %s, %d; want %s, x86_64, 1", info.BuildID, info.Arch, info.CPUs, buildID)
			}
			if err := CheckVmlinux(info, d.VMLINUX); err != nil {
				t.Errorf("CheckVmlinux: %v", err)
			}
		})
	}
}

func TestCheckVmlinuxMismatch(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	info := &DumpInfo{BuildID: "00112233445566778899aabbccddeeff00112233", OSRelease: "6.1.0-99-amd64"}
	if _, err := KernelBuildID(self); err != nil {
		t.Skipf("test binary has no GNU build ID to compare: %v", err)
	}
	if err := CheckVmlinux(info, self); !errors.Is(err, ErrVmlinuxMismatch) {
		t.Errorf("CheckVmlinux = %v, want ErrVmlinuxMismatch", err)
	}
	if err := CheckVmlinux(&DumpInfo{}, self); err != nil {
		t.Errorf("CheckVmlinux without a recorded build ID = %v, want nil", err)
	}
	if _, err := KernelBuildID(writeTemp(t, "x", []byte("not elf"))); err == nil {
		t.Error("KernelBuildID of a text file succeeded")
	}
}
