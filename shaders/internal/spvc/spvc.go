// Package spvc compiles forma's GLSL compute shaders to SPIR-V with glslangValidator and keeps the manifest
// that ties each committed .spv to the sources and compiler it came from.
package spvc

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// TargetEnv is the Vulkan environment shaders are compiled and validated for.
const TargetEnv = "vulkan1.2"

// ManifestName is the manifest's file name inside the output folder.
const ManifestName = "manifest.txt"

// VariantPrefix starts a line of a .comp file that declares one compiled variant: the variant's name, then
// preprocessor definitions, e.g. "//#variant matvec_q4_0 WTYPE=2". A source with variant lines compiles to
// those variants only (its own name is not a shader); a source without compiles to one shader of its name.
const VariantPrefix = "//#variant "

// Source is one shader to compile: a .comp file and the definitions it is compiled with.
type Source struct {
	Name    string   // the shader's name (the .spv file's stem)
	File    string   // the .comp file's base name
	Defines []string // NAME=VALUE definitions passed to the compiler
}

// ListSources lists every shader in dir (one per .comp file, or one per variant line), sorted by name.
func ListSources(dir string) ([]Source, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.comp"))
	if err != nil {
		return nil, err
	}
	var out []Source
	seen := map[string]string{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		file := filepath.Base(p)
		var vars []Source
		for _, line := range strings.Split(string(data), "\n") {
			rest, ok := strings.CutPrefix(strings.TrimSpace(line), VariantPrefix)
			if !ok {
				continue
			}
			f := strings.Fields(rest)
			if len(f) == 0 {
				return nil, fmt.Errorf("%s: variant line without a name", file)
			}
			for _, d := range f[1:] {
				if !strings.Contains(d, "=") {
					return nil, fmt.Errorf("%s: variant %s: definition %q is not NAME=VALUE", file, f[0], d)
				}
			}
			vars = append(vars, Source{Name: f[0], File: file, Defines: f[1:]})
		}
		if len(vars) == 0 {
			vars = []Source{{Name: strings.TrimSuffix(file, ".comp"), File: file}}
		}
		for _, v := range vars {
			if other, dup := seen[v.Name]; dup {
				return nil, fmt.Errorf("shader %s is declared by %s and %s", v.Name, other, file)
			}
			seen[v.Name] = file
			out = append(out, v)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Sources lists the shader names in dir, sorted.
func Sources(dir string) ([]string, error) {
	srcs, err := ListSources(dir)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(srcs))
	for i, s := range srcs {
		names[i] = s.Name
	}
	return names, nil
}

// lookup finds the source of shader name in dir.
func lookup(dir, name string) (Source, error) {
	srcs, err := ListSources(dir)
	if err != nil {
		return Source{}, err
	}
	for _, s := range srcs {
		if s.Name == name {
			return s, nil
		}
	}
	return Source{}, fmt.Errorf("no shader %s in %s", name, dir)
}

// InputHash hashes a shader's source and definitions together with every shared include (*.glsl) in dir, so
// a change to any of them marks the shader stale.
func InputHash(dir, name string) (string, error) {
	src, err := lookup(dir, name)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	if len(src.Defines) > 0 {
		fmt.Fprintf(h, "defines %s\n", strings.Join(src.Defines, " "))
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.glsl"))
	if err != nil {
		return "", err
	}
	sort.Strings(files)
	for _, f := range append([]string{filepath.Join(dir, src.File)}, files...) {
		data, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n")) // a Windows checkout hashes the same
		fmt.Fprintf(h, "%s %d\n", filepath.Base(f), len(data))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Hash is the hex SHA-256 of data.
func Hash(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

// GlslangVersion returns the first line of `glslangValidator --version`.
func GlslangVersion(glslang string) (string, error) {
	out, err := exec.Command(glslang, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %w", glslang, err)
	}
	line, _, _ := strings.Cut(string(out), "\n")
	return strings.TrimSpace(line), nil
}

// Compile compiles shader name of dir (a .comp file, or a variant of one) to SPIR-V.
func Compile(glslang, dir, name string) ([]byte, error) {
	src, err := lookup(dir, name)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "spvc")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	out := filepath.Join(tmp, name+".spv")
	args := []string{"-V", "--target-env", TargetEnv, "-o", out}
	for _, d := range src.Defines {
		args = append(args, "-D"+d)
	}
	cmd := exec.Command(glslang, append(args, filepath.Join(dir, src.File))...)
	if msg, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("glslangValidator %s (%s %v): %w\n%s", name, src.File, src.Defines, err, msg)
	}
	return os.ReadFile(out)
}

// Validate runs spirv-val on a SPIR-V module.
func Validate(spirvVal string, spv []byte) error {
	cmd := exec.Command(spirvVal, "--target-env", TargetEnv, "-")
	cmd.Stdin = bytes.NewReader(spv)
	if msg, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("spirv-val: %w\n%s", err, msg)
	}
	return nil
}

// Entry is one manifest line.
type Entry struct {
	Name      string
	InputHash string // InputHash of the sources
	SPIRVHash string // Hash of the committed .spv
}

// Manifest records the compiler and, per shader, what was compiled into what.
type Manifest struct {
	Glslang string
	Entries []Entry
}

// Write stores the manifest.
func (m Manifest) Write(path string) error {
	var b strings.Builder
	b.WriteString("# Generated by `go generate ./shaders/...`; do not edit.\n")
	fmt.Fprintf(&b, "glslang %s\n", m.Glslang)
	for _, e := range m.Entries {
		fmt.Fprintf(&b, "%s %s %s\n", e.Name, e.InputHash, e.SPIRVHash)
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// ReadManifest parses a manifest.
func ReadManifest(path string) (Manifest, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Manifest{}, err
	}
	var m Manifest
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if v, ok := strings.CutPrefix(line, "glslang "); ok {
			m.Glslang = v
			continue
		}
		f := strings.Fields(line)
		if len(f) != 3 {
			return Manifest{}, fmt.Errorf("%s: bad line %q", path, line)
		}
		m.Entries = append(m.Entries, Entry{f[0], f[1], f[2]})
	}
	return m, sc.Err()
}
