package main

import (
	"os"
	"unsafe"

	"golang.org/x/sys/windows"
	"golang.org/x/term"
)

var procGetConsoleProcessList = windows.NewLazySystemDLL("kernel32.dll").NewProc("GetConsoleProcessList")

// interactive reports whether forma was started from a terminal. A double-clicked console program gets a console
// of its own, so a terminal on stdin or stdout is not enough: forma must also share its console with another
// process (the shell that started it).
func interactive() bool {
	if !term.IsTerminal(int(os.Stdin.Fd())) && !term.IsTerminal(int(os.Stdout.Fd())) {
		return false
	}
	var pids [2]uint32
	n, _, _ := procGetConsoleProcessList.Call(uintptr(unsafe.Pointer(&pids[0])), uintptr(len(pids)))
	return n != 1 // 0: the call failed, so assume a terminal
}
