package testdir

import (
	"os"
	"path/filepath"
	"testing"
)

func TestModuleRoot(t *testing.T) {
	root := moduleRoot()
	if root == "" {
		t.Fatal("no module root found above the package directory")
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root %s has no go.mod: %v", root, err)
	}
}

func TestEnvOverride(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(EnvVar, dir)
	if got := Dir(t); got != dir {
		t.Fatalf("Dir = %q, want %q", got, dir)
	}
}

func TestEnvMissingSkips(t *testing.T) {
	t.Setenv(EnvVar, filepath.Join(t.TempDir(), "absent"))
	if got, _ := find(); got != "" {
		t.Fatalf("find = %q for a missing folder, want none", got)
	}
}

// TestEnvRelative: a relative FORMA_TESTDATA names a folder under the module root, whatever the package
// directory the test runs in.
func TestEnvRelative(t *testing.T) {
	root := moduleRoot()
	rel, err := filepath.Rel(root, t.TempDir())
	if err != nil {
		t.Skip(err)
	}
	t.Setenv(EnvVar, rel)
	if got, want := Dir(t), filepath.Join(root, rel); got != want {
		t.Fatalf("Dir = %q, want %q", got, want)
	}
	t.Setenv(EnvVar, "internal/testdir")
	if got, want := Dir(t), filepath.Join(root, "internal", "testdir"); got != want {
		t.Fatalf("Dir = %q, want %q", got, want)
	}
}
