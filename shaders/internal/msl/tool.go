package msl

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// The pinned SPIRV-Cross: upstream KhronosGroup/SPIRV-Cross at this commit (tag PinnedTag). Debian's 2021
// package mistranslates shared arrays sized by the workgroup size, and output differs between versions, so the
// committed MSL is made with this build only (.ci/build-spirv-cross builds it).
const (
	PinnedCommit = "6c09849fe"
	PinnedTag    = "vulkan-sdk-1.4.357"
)

// Options are the SPIRV-Cross options every kernel is translated with: MSL 3.0 (macOS 13), macOS.
var Options = []string{"--msl", "--msl-version", "30000"}

// ToolEnv names an environment variable holding the path of the pinned spirv-cross.
const ToolEnv = "FORMA_SPIRV_CROSS"

// FindTool returns the path of the pinned spirv-cross: $FORMA_SPIRV_CROSS, the shared tools folder beside the
// checkout (../shared/bin/spirv-cross), .ci/build-spirv-cross's output (.cache/spirv-cross), or spirv-cross on
// PATH — whichever comes first and is the pinned build. It returns "" and why when none is.
func FindTool(moduleRoot string) (string, string) {
	var cands []string
	if p := os.Getenv(ToolEnv); p != "" {
		cands = append(cands, p)
	}
	if moduleRoot != "" {
		cands = append(cands, filepath.Join(moduleRoot, "..", "shared", "bin", "spirv-cross", "spirv-cross"),
			filepath.Join(moduleRoot, ".cache", "spirv-cross", "bin", "spirv-cross"))
	}
	if p, err := exec.LookPath("spirv-cross"); err == nil {
		cands = append(cands, p)
	}
	var why []string
	for _, c := range cands {
		if _, err := os.Stat(c); err != nil {
			continue
		}
		ok, desc := IsPinned(c)
		if ok {
			return c, ""
		}
		why = append(why, fmt.Sprintf("%s is %s", c, desc))
	}
	if len(why) == 0 {
		return "", fmt.Sprintf("no spirv-cross found (set %s, or run .ci/build-spirv-cross)", ToolEnv)
	}
	return "", fmt.Sprintf("no pinned spirv-cross (%s): %s", PinnedCommit, strings.Join(why, "; "))
}

var commitRE = regexp.MustCompile(`Git commit:\s*([0-9a-f]{7,40})`)

// IsPinned reports whether tool is the pinned SPIRV-Cross: its --revision names the pinned commit, or (a build
// whose revision is blank) a README.md beside it does. The second result describes the tool.
func IsPinned(tool string) (bool, string) {
	out, err := exec.Command(tool, "--revision").CombinedOutput()
	if err != nil {
		return false, fmt.Sprintf("not runnable (%v)", err)
	}
	if m := commitRE.FindSubmatch(out); m != nil {
		c := string(m[1])
		if strings.HasPrefix(c, PinnedCommit) || strings.HasPrefix(PinnedCommit, c) {
			return true, "commit " + c
		}
		return false, "commit " + c
	}
	readme, err := os.ReadFile(filepath.Join(filepath.Dir(tool), "README.md"))
	if err == nil && bytes.Contains(readme, []byte("commit "+PinnedCommit)) {
		return true, "commit " + PinnedCommit + " (README.md)"
	}
	return false, "a build of unknown commit"
}

// ToolLine is the manifest's record of the tool and options.
func ToolLine() string {
	return fmt.Sprintf("spirv-cross %s (%s) %s", PinnedCommit, PinnedTag, strings.Join(Options, " "))
}

// fpContract is inserted after the MSL's `using namespace metal;`: no operation may be fused into a
// multiply-add unless the shader says so (fma), as on every other backend.
const fpContract = "#pragma clang fp contract(off)\n"

// Translate turns kernel name's SPIR-V into MSL with tool, names the entry point forma_<name>, and inserts
// the fp-contract pragma.
func Translate(tool, name string, spv []byte) ([]byte, error) {
	tmp, err := os.MkdirTemp("", "mslgen")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	in, out := filepath.Join(tmp, name+".spv"), filepath.Join(tmp, name+".metal")
	if err := os.WriteFile(in, spv, 0o644); err != nil {
		return nil, err
	}
	args := append(append([]string{}, Options...), "--rename-entry-point", "main", EntryPrefix+name, "comp", in, "--output", out)
	if msg, err := exec.Command(tool, args...).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("spirv-cross %s: %w\n%s", name, err, msg)
	}
	src, err := os.ReadFile(out)
	if err != nil {
		return nil, err
	}
	const anchor = "using namespace metal;\n"
	i := bytes.Index(src, []byte(anchor))
	if i < 0 {
		return nil, fmt.Errorf("spirv-cross %s: no %q in its output", name, strings.TrimSpace(anchor))
	}
	i += len(anchor)
	return append(append(append([]byte{}, src[:i]...), fpContract...), src[i:]...), nil
}
