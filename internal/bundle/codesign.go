package bundle

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
)

// An ad-hoc code signature, as Apple's linker and the Go linker write one for a Mach-O executable
// (xnu's osfmk/kern/cs_blobs.h has the structures). It is an embedded-signature SuperBlob holding one
// CodeDirectory: the SHA-256 of every 4 KiB page of the file before the signature (the last page may be short),
// an identifier, and the executable segment's place. No certificate, no requirements: the kernel accepts such a
// signature on Apple silicon, and `codesign --sign` can replace it with a real one. All fields are big-endian.
const (
	csMagicEmbedded      = 0xfade0cc0 // CSMAGIC_EMBEDDED_SIGNATURE
	csMagicCodeDirectory = 0xfade0c02 // CSMAGIC_CODEDIRECTORY
	csSlotCodeDirectory  = 0          // CSSLOT_CODEDIRECTORY
	csVersion            = 0x20400    // a CodeDirectory with the executable-segment fields
	csFlagsAdhoc         = 0x2        // CS_ADHOC
	csFlagsLinkerSigned  = 0x20000    // CS_LINKER_SIGNED: written by a linker; codesign may replace it freely
	csHashSHA256         = 2          // CS_HASHTYPE_SHA256
	csPageShift          = 12
	csPage               = 1 << csPageShift
	csExecSegMain        = 0x1 // CS_EXECSEG_MAIN_BINARY

	superBlobHeader   = 12 // magic, length, count
	blobIndexSize     = 8  // type, offset
	codeDirHeaderSize = 88 // the CodeDirectory's fixed fields up to execSegFlags
)

// signatureSize is the size of the signature of codeLimit bytes with identifier id.
func signatureSize(codeLimit int64, id string) int64 {
	pages := (codeLimit + csPage - 1) / csPage
	return superBlobHeader + blobIndexSize + codeDirHeaderSize + int64(len(id)) + 1 + pages*sha256.Size
}

// writeSignature hashes the first codeLimit bytes of code page by page and writes the signature to w.
// textOff and textLen place the __TEXT segment; main says the file is an executable (not a library).
func writeSignature(w io.Writer, code io.Reader, codeLimit int64, id string, textOff, textLen int64, main bool) error {
	if codeLimit >= 1<<32 {
		return fmt.Errorf("code signature: %d bytes to sign, more than 32-bit offsets reach", codeLimit)
	}
	size := signatureSize(codeLimit, id)
	pages := (codeLimit + csPage - 1) / csPage
	hashOff := codeDirHeaderSize + len(id) + 1
	be := binary.BigEndian
	b := make([]byte, 0, superBlobHeader+blobIndexSize+hashOff)
	b = be.AppendUint32(b, csMagicEmbedded)
	b = be.AppendUint32(b, uint32(size))
	b = be.AppendUint32(b, 1) // one blob
	b = be.AppendUint32(b, csSlotCodeDirectory)
	b = be.AppendUint32(b, superBlobHeader+blobIndexSize)
	// The CodeDirectory.
	b = be.AppendUint32(b, csMagicCodeDirectory)
	b = be.AppendUint32(b, uint32(size-superBlobHeader-blobIndexSize))
	b = be.AppendUint32(b, csVersion)
	b = be.AppendUint32(b, csFlagsAdhoc|csFlagsLinkerSigned)
	b = be.AppendUint32(b, uint32(hashOff))
	b = be.AppendUint32(b, codeDirHeaderSize) // the identifier follows the fixed fields
	b = be.AppendUint32(b, 0)                 // special slots: none
	b = be.AppendUint32(b, uint32(pages))
	b = be.AppendUint32(b, uint32(codeLimit))
	b = append(b, sha256.Size, csHashSHA256, 0 /* platform */, csPageShift)
	b = be.AppendUint32(b, 0) // spare
	b = be.AppendUint32(b, 0) // scatter offset: none
	b = be.AppendUint32(b, 0) // team identifier: none
	b = be.AppendUint32(b, 0) // spare
	b = be.AppendUint64(b, 0) // 64-bit code limit: unused below 4 GiB
	var flags uint64
	if main {
		flags = csExecSegMain
	}
	b = be.AppendUint64(b, uint64(textOff))
	b = be.AppendUint64(b, uint64(textLen))
	b = be.AppendUint64(b, flags)
	b = append(b, id...)
	b = append(b, 0)
	if _, err := w.Write(b); err != nil {
		return err
	}
	page := make([]byte, csPage)
	for done := int64(0); done < codeLimit; {
		n := min(csPage, codeLimit-done)
		if _, err := io.ReadFull(code, page[:n]); err != nil {
			return fmt.Errorf("code signature: reading page at %d: %w", done, err)
		}
		sum := sha256.Sum256(page[:n])
		if _, err := w.Write(sum[:]); err != nil {
			return err
		}
		done += n
	}
	return nil
}
