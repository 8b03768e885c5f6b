package msl

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Hash is the hex SHA-256 of data.
func Hash(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

// Generate translates every module in spvDir (NAME.spv) with tool and returns the MSL sources by name and the
// manifest.
func Generate(tool, spvDir string) (map[string][]byte, Manifest, error) {
	paths, err := filepath.Glob(filepath.Join(spvDir, "*.spv"))
	if err != nil {
		return nil, Manifest{}, err
	}
	srcs := map[string][]byte{}
	m := Manifest{Tool: ToolLine()}
	for _, p := range paths { // Glob sorts
		name := strings.TrimSuffix(filepath.Base(p), ".spv")
		spv, err := os.ReadFile(p)
		if err != nil {
			return nil, Manifest{}, err
		}
		src, err := Translate(tool, name, spv)
		if err != nil {
			return nil, Manifest{}, err
		}
		k, err := Describe(name, spv, src)
		if err != nil {
			return nil, Manifest{}, err
		}
		if k.Entry != EntryPrefix+name {
			return nil, Manifest{}, fmt.Errorf("%s: entry point %s, want %s", name, k.Entry, EntryPrefix+name)
		}
		srcs[name] = src
		m.Entries = append(m.Entries, Entry{Kernel: k, SPIRVHash: Hash(spv), MSLHash: Hash(src)})
	}
	return srcs, m, nil
}
