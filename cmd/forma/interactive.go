//go:build !windows

package main

import (
	"os"

	"golang.org/x/term"
)

// interactive reports whether forma was started from a terminal (stdin or stdout is one).
func interactive() bool {
	return term.IsTerminal(int(os.Stdin.Fd())) || term.IsTerminal(int(os.Stdout.Fd()))
}
