package main

import (
	"fmt"
	"io"
	goruntime "runtime"
	"runtime/debug"
)

func init() {
	register(command{name: "version", summary: "print forma's version and the commit it was built from", run: runVersion})
}

// The release build stamps these: go build -ldflags "-X main.version=v1.2.3 -X main.commit=abcdef0".
var (
	version = "dev"
	commit  = ""
)

func runVersion(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("version", "", stderr)
	if pos, err := parseFlags(fs, args); err != nil {
		return err
	} else if len(pos) > 0 {
		fs.Usage()
		return errUsage
	}
	fmt.Fprintf(stdout, "forma %s (commit %s, %s, %s/%s)\n", version, buildCommit(), goruntime.Version(),
		goruntime.GOOS, goruntime.GOARCH)
	return nil
}

// buildCommit returns the stamped commit, else the one the Go toolchain recorded from the checkout, else
// "unknown".
func buildCommit() string {
	if commit != "" {
		return commit
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	var rev, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	if rev == "" {
		return "unknown"
	}
	return rev[:min(len(rev), 12)] + dirty
}
