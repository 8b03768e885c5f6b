package bundle

import (
	"bytes"
	"debug/elf"
	"debug/pe"
	"encoding/binary"
	"fmt"
	"io"
	"os"
)

// format is an executable file format.
type format uint8

const (
	formatNone format = iota
	formatELF
	formatPE
	formatMachO // 64-bit, little-endian: the only kind Go writes for darwin/amd64 and darwin/arm64
)

func (f format) String() string {
	return [...]string{"not an executable", "ELF", "PE", "Mach-O"}[f]
}

// formatOf recognises an executable by its first four bytes.
func formatOf(magic []byte) format {
	switch {
	case bytes.Equal(magic, []byte(elf.ELFMAG)):
		return formatELF
	case bytes.HasPrefix(magic, []byte("MZ")):
		return formatPE
	case bytes.Equal(magic, []byte{0xcf, 0xfa, 0xed, 0xfe}):
		return formatMachO
	}
	return formatNone
}

// Target is a platform, as Go names it.
type Target struct{ GOOS, GOARCH string }

func (t Target) String() string { return t.GOOS + "/" + t.GOARCH }

// ParseTarget reads "GOOS/GOARCH".
func ParseTarget(s string) (Target, error) {
	i := bytes.IndexByte([]byte(s), '/')
	if i <= 0 || i == len(s)-1 {
		return Target{}, fmt.Errorf("target %q: want GOOS/GOARCH, e.g. darwin/arm64", s)
	}
	return Target{s[:i], s[i+1:]}, nil
}

// targetOf returns the platform an executable runs on.
func targetOf(f *os.File) (Target, format, error) {
	var magic [4]byte
	if _, err := f.ReadAt(magic[:], 0); err != nil {
		return Target{}, formatNone, fmt.Errorf("not an executable: %w", err)
	}
	switch fm := formatOf(magic[:]); fm {
	case formatELF:
		ef, err := elf.NewFile(f)
		if err != nil {
			return Target{}, fm, err
		}
		arch := map[elf.Machine]string{elf.EM_X86_64: "amd64", elf.EM_AARCH64: "arm64", elf.EM_386: "386",
			elf.EM_RISCV: "riscv64"}[ef.Machine]
		if arch == "" || (ef.OSABI != elf.ELFOSABI_NONE && ef.OSABI != elf.ELFOSABI_LINUX) {
			return Target{}, fm, fmt.Errorf("unsupported ELF executable (%v, %v)", ef.OSABI, ef.Machine)
		}
		return Target{"linux", arch}, fm, nil
	case formatPE:
		pf, err := pe.NewFile(f)
		if err != nil {
			return Target{}, fm, err
		}
		arch := map[uint16]string{pe.IMAGE_FILE_MACHINE_AMD64: "amd64", pe.IMAGE_FILE_MACHINE_ARM64: "arm64",
			pe.IMAGE_FILE_MACHINE_I386: "386"}[pf.Machine]
		if arch == "" {
			return Target{}, fm, fmt.Errorf("unsupported PE machine %#x", pf.Machine)
		}
		return Target{"windows", arch}, fm, nil
	case formatMachO:
		h, err := readMachOHeader(f)
		if err != nil {
			return Target{}, fm, err
		}
		arch := map[uint32]string{cpuAMD64: "amd64", cpuARM64: "arm64"}[h.cpu]
		if arch == "" || h.filetype != machoExecute {
			return Target{}, fm, fmt.Errorf("unsupported Mach-O file (cpu %#x, type %d)", h.cpu, h.filetype)
		}
		return Target{"darwin", arch}, fm, nil
	default:
		return Target{}, fm, fmt.Errorf("not an executable (ELF, PE or Mach-O)")
	}
}

// elfRegion returns the bytes of an ELF file past its image: past its program segments, its sections and its
// section header table.
func elfRegion(f *os.File, size int64) (region, error) {
	ef, err := elf.NewFile(f)
	if err != nil {
		return region{}, fmt.Errorf("reading the ELF headers: %w", err)
	}
	var end uint64
	for _, p := range ef.Progs {
		end = max(end, p.Off+p.Filesz)
	}
	for _, s := range ef.Sections {
		if s.Type != elf.SHT_NOBITS {
			end = max(end, s.Offset+s.FileSize)
		}
	}
	// debug/elf keeps e_shoff to itself; the header table's place is read from the file header.
	hdr := make([]byte, 64)
	if _, err := f.ReadAt(hdr, 0); err != nil {
		return region{}, err
	}
	bo := ef.ByteOrder
	var shoff, shent, shnum uint64
	if ef.Class == elf.ELFCLASS64 {
		shoff, shent, shnum = bo.Uint64(hdr[0x28:]), uint64(bo.Uint16(hdr[0x3a:])), uint64(bo.Uint16(hdr[0x3c:]))
	} else {
		shoff, shent, shnum = uint64(bo.Uint32(hdr[0x20:])), uint64(bo.Uint16(hdr[0x2e:])), uint64(bo.Uint16(hdr[0x30:]))
	}
	end = max(end, shoff+shent*shnum)
	return appended(end, size)
}

// peRegion returns the bytes of a PE file past its image (its overlay): past its headers, sections and COFF
// symbol and string tables, and before a certificate table that ends the file (one added by signing the bundle).
func peRegion(f *os.File, size int64) (region, error) {
	pf, err := pe.NewFile(f)
	if err != nil {
		return region{}, fmt.Errorf("reading the PE headers: %w", err)
	}
	var end uint64
	var dirs []pe.DataDirectory
	switch oh := pf.OptionalHeader.(type) {
	case *pe.OptionalHeader64:
		end, dirs = uint64(oh.SizeOfHeaders), oh.DataDirectory[:oh.NumberOfRvaAndSizes]
	case *pe.OptionalHeader32:
		end, dirs = uint64(oh.SizeOfHeaders), oh.DataDirectory[:oh.NumberOfRvaAndSizes]
	}
	for _, s := range pf.Sections {
		end = max(end, uint64(s.Offset)+uint64(s.Size))
	}
	if sym := uint64(pf.PointerToSymbolTable); sym != 0 {
		strtab := sym + 18*uint64(pf.NumberOfSymbols)
		var n [4]byte
		if _, err := f.ReadAt(n[:], int64(strtab)); err != nil && err != io.EOF {
			return region{}, err
		}
		end = max(end, strtab+uint64(binary.LittleEndian.Uint32(n[:])))
	}
	dataEnd := uint64(size)
	if len(dirs) > pe.IMAGE_DIRECTORY_ENTRY_SECURITY {
		// The security directory's address is a file offset, not an RVA.
		c := dirs[pe.IMAGE_DIRECTORY_ENTRY_SECURITY]
		if c.Size > 0 && uint64(c.VirtualAddress)+uint64(c.Size) == dataEnd && uint64(c.VirtualAddress) >= end {
			dataEnd = uint64(c.VirtualAddress)
		}
	}
	return appended(end, int64(dataEnd))
}

// appended is the region [imageEnd, dataEnd) of a file, or says the image itself is cut short.
func appended(imageEnd uint64, dataEnd int64) (region, error) {
	if imageEnd > uint64(dataEnd) {
		return region{truncated: fmt.Sprintf("the executable image needs %d bytes, the file has %d", imageEnd,
			dataEnd)}, nil
	}
	return region{start: int64(imageEnd), end: dataEnd}, nil
}
