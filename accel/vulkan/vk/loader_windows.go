//go:build windows

package vk

import (
	"fmt"
	"syscall"
)

func libraryNames() []string { return []string{"vulkan-1.dll"} }

func openLibrary(name string) (uintptr, error) {
	h, err := syscall.LoadLibrary(name)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", name, err)
	}
	return uintptr(h), nil
}

func symbol(h uintptr, name string) (uintptr, error) {
	return syscall.GetProcAddress(syscall.Handle(h), name)
}
