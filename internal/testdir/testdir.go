// Package testdir locates the shared reference data (llama.cpp outputs) that tests compare against.
//
// The folder is found as follows:
//  1. $FORMA_TESTDATA, when set; a relative path is taken from the module root (the directory holding go.mod),
//     not from the package directory `go test` runs in, so that FORMA_TESTDATA=../shared/testdata/extra typed
//     at the module root means the same folder to every package;
//  2. otherwise, walking up from the working directory (a package directory under `go test`) to the module
//     root (the directory holding go.mod), <root>/../shared/testdata, then <root>/shared/testdata.
//
// When no folder is found the calling test is skipped with a message saying where it looked, so the
// module's tests pass on a checkout without the data.
package testdir

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// EnvVar names the environment variable that overrides the search.
const EnvVar = "FORMA_TESTDATA"

// Dir returns the testdata folder, or skips the test (tb.Skip) when it cannot be found.
func Dir(tb testing.TB) string {
	tb.Helper()
	dir, err := Find()
	if err != nil {
		tb.Skip(err)
	}
	return dir
}

// Lookup returns the testdata folder and true, or false when none is found: for a test that can run on data of its
// own making when the reference data is absent.
func Lookup() (string, bool) {
	dir, _ := find()
	return dir, dir != ""
}

// Sub returns the folder name inside the testdata folder, or skips the test when it does not exist.
func Sub(tb testing.TB, name string) string {
	tb.Helper()
	p := filepath.Join(Dir(tb), name)
	if !isDir(p) {
		tb.Skipf("reference testdata folder %s not found", p)
	}
	return p
}

// Find returns the testdata folder, or an error saying where it looked (for tools; tests use Dir).
func Find() (string, error) {
	dir, tried := find()
	if dir == "" {
		return "", fmt.Errorf("reference testdata not found (looked in %v); set %s to the shared/testdata folder", tried, EnvVar)
	}
	return dir, nil
}

// find returns the testdata folder ("" if none) and the candidates it tried.
func find() (string, []string) {
	root := moduleRoot()
	if env := os.Getenv(EnvVar); env != "" {
		if !filepath.IsAbs(env) && root != "" {
			env = filepath.Join(root, env)
		}
		if isDir(env) {
			return env, []string{env}
		}
		return "", []string{env}
	}
	if root == "" {
		return "", []string{"(no go.mod above the working directory)"}
	}
	candidates := []string{
		filepath.Join(filepath.Dir(root), "shared", "testdata"),
		filepath.Join(root, "shared", "testdata"),
	}
	for _, c := range candidates {
		if isDir(c) {
			return c, candidates
		}
	}
	return "", candidates
}

// moduleRoot walks up from the working directory to the first directory holding go.mod.
func moduleRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if st, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil && !st.IsDir() {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}
