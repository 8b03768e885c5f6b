package vk

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
)

// ErrNoLoader is returned (wrapped with the reason) when no Vulkan loader library can be opened.
var ErrNoLoader = errors.New("vk: no Vulkan loader")

// LibraryEnv names an environment variable that, when set, is the only path Load tries.
const LibraryEnv = "FORMA_VULKAN_LIBRARY"

// Library is the opened Vulkan loader and its global commands.
type Library struct {
	GlobalCommands
	// Path is the name or path the library was opened with.
	Path                string
	getInstanceProcAddr uintptr
}

var (
	loadOnce sync.Once
	loaded   *Library
	loadErr  error
)

// Load opens the Vulkan loader library. The library is opened once per process and never closed; later calls
// return the same result.
func Load() (*Library, error) {
	loadOnce.Do(func() { loaded, loadErr = load() })
	return loaded, loadErr
}

func load() (*Library, error) {
	names := libraryNames()
	if p := os.Getenv(LibraryEnv); p != "" {
		names = []string{p}
	}
	var reasons []string
	for _, name := range names {
		h, err := openLibrary(name)
		if err != nil {
			reasons = append(reasons, err.Error())
			continue
		}
		gipa, err := symbol(h, "vkGetInstanceProcAddr")
		if err != nil || gipa == 0 {
			reasons = append(reasons, fmt.Sprintf("%s: no vkGetInstanceProcAddr", name))
			continue
		}
		l := &Library{Path: name, getInstanceProcAddr: gipa}
		l.GlobalCommands.load(func(n string) uintptr { return l.procAddr(0, n) })
		if l.pfnCreateInstance == 0 {
			reasons = append(reasons, fmt.Sprintf("%s: vkGetInstanceProcAddr returns no vkCreateInstance", name))
			continue
		}
		return l, nil
	}
	return nil, fmt.Errorf("%w (%s)", ErrNoLoader, strings.Join(reasons, "; "))
}

// procAddr calls vkGetInstanceProcAddr; name must end in a NUL byte.
func (l *Library) procAddr(instance Instance, name string) uintptr {
	if !strings.HasSuffix(name, "\x00") {
		panic("vk: procAddr name without NUL: " + name)
	}
	r, _, _ := purego.SyscallN(l.getInstanceProcAddr, uintptr(instance), uintptr(unsafe.Pointer(unsafe.StringData(name))))
	return r
}

// LoadInstance loads the instance-level commands of instance.
func (l *Library) LoadInstance(instance Instance) *InstanceCommands {
	t := &InstanceCommands{}
	t.load(func(n string) uintptr { return l.procAddr(instance, n) })
	return t
}

// LoadDevice loads the device-level commands of device, created from instance. Commands vkGetDeviceProcAddr does
// not return (device commands of instance extensions, on some loaders) are taken from vkGetInstanceProcAddr.
func (l *Library) LoadDevice(ic *InstanceCommands, instance Instance, device Device) *DeviceCommands {
	t := &DeviceCommands{}
	t.load(func(n string) uintptr {
		if ic.pfnGetDeviceProcAddr != 0 {
			if p := ic.GetDeviceProcAddr(device, unsafe.StringData(n)); p != 0 {
				return p
			}
		}
		return l.procAddr(instance, n)
	})
	return t
}
