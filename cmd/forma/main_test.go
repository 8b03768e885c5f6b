package main

import (
	"os"
	"testing"
)

// selfExecEnv makes the test binary act as the forma command (for tests that need a process of its own: a
// pseudo-terminal, signals, stdin).
const selfExecEnv = "FORMA_TEST_AS_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(selfExecEnv) == "1" {
		testHooks()
		os.Exit(entry(os.Args[1:]))
	}
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}
