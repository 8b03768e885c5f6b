package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/accel/cpu"
	"github.com/forma-llm/forma/runtime"
)

// backendOpener creates a backend; files for optional backends add theirs to backendOpeners in init.
type backendOpener func(threads int) (accel.Backend, error)

var backendOpeners = map[string]backendOpener{
	"cpu": func(threads int) (accel.Backend, error) { return cpu.New(cpu.Options{Threads: threads}) },
}

// autoOrder is the preference of --backend auto: GPUs first, the CPU last.
var autoOrder = []string{"metal", "vulkan", "cpu"}

// errNotHere, wrapped by an opener's error (notHere), says the backend cannot exist on this system (Metal off
// macOS): auto passes over it without a word.
var errNotHere = errors.New("not on this system")

// notHere wraps err as errNotHere without changing its message.
func notHere(err error) error { return notHereError{err} }

type notHereError struct{ err error }

func (e notHereError) Error() string   { return e.err.Error() }
func (e notHereError) Unwrap() []error { return []error{e.err, errNotHere} }

// autoOpeners, where a backend has one, replace its opener under --backend auto: they may decline a device that
// an explicit --backend would use (Vulkan's software rasterizer, slower than the CPU backend).
var autoOpeners = map[string]backendOpener{}

// backendFlags are the flags every command that runs a model shares.
type backendFlags struct {
	name    string
	threads int
	kv      string
	kvType  runtime.KVType
	fa      bool
	stderr  io.Writer
}

func addBackendFlags(fs *flag.FlagSet, stderr io.Writer) *backendFlags {
	b := &backendFlags{stderr: stderr}
	fs.StringVar(&b.name, "backend", "cpu", "compute `backend`: cpu, vulkan, metal or auto")
	fs.IntVar(&b.threads, "t", 0, "CPU `threads` (default: physical cores)")
	fs.IntVar(&b.threads, "threads", 0, "CPU `threads` (default: physical cores)")
	fs.StringVar(&b.kv, "kv", "f16", "KV cache `type`: f16, f32, q8_0 or q4_0 (the quantized ones use flash attention; CPU backend)")
	fs.BoolVar(&b.fa, "fa", false, "flash attention, as llama.cpp's -fa on (implied by a quantized --kv; CPU backend)")
	return b
}

func knownBackends() string {
	names := []string{"auto"}
	for n := range backendOpeners {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// open creates the chosen backend. With auto, it tries each backend in autoOrder and says on stderr why one
// was passed over (unavailable, or without the flash attention --fa or a quantized --kv needs).
func (b *backendFlags) open() (accel.Backend, error) {
	kv, err := runtime.ParseKVType(b.kv)
	if err != nil {
		return nil, fmt.Errorf("--kv: %w", err)
	}
	b.kvType = kv
	if b.name == "auto" {
		for _, n := range autoOrder {
			open, ok := backendOpeners[n]
			if !ok {
				continue
			}
			if a, ok := autoOpeners[n]; ok {
				open = a
			}
			be, err := open(b.threads)
			if err == nil && (b.fa || kv.Quantized()) && !be.Caps().FlashAttention {
				be.Close()
				need := "--fa"
				if kv.Quantized() {
					need = "--kv " + kv.String()
				}
				fmt.Fprintf(b.stderr, "forma: %s backend has no flash attention, which %s needs; trying the next\n", n, need)
				continue
			}
			if err == nil {
				return be, nil
			}
			if errors.Is(err, errNotHere) {
				continue
			}
			fmt.Fprintf(b.stderr, "forma: %s backend unavailable (%v); trying the next\n", n, err)
		}
		return nil, errors.New("no backend could be opened")
	}
	open, ok := backendOpeners[b.name]
	if !ok {
		return nil, fmt.Errorf("unknown backend %q (known: %s)", b.name, knownBackends())
	}
	return open(b.threads)
}

// load resolves the model name, opens the backend and the model; the returned function closes both, in order.
func (b *backendFlags) load(name string) (*runtime.Model, func(), error) {
	path, err := resolveModel(name)
	if err != nil {
		return nil, nil, err
	}
	be, err := b.open()
	if err != nil {
		return nil, nil, err
	}
	m, err := runtime.Load(path, runtime.Options{Backend: be, FlashAttention: b.fa})
	if err != nil {
		be.Close()
		return nil, nil, err
	}
	return m, func() { m.Close(); be.Close() }, nil
}

// loadModel is load with runtime options, drawing a progress bar on stderr while the weights upload when bar is
// set (stderr is a terminal).
func (b *backendFlags) loadModel(path string, opt runtime.Options, bar bool) (*runtime.Model, func(), error) {
	be, err := b.open()
	if err != nil {
		return nil, nil, err
	}
	opt.Backend, opt.FlashAttention = be, b.fa
	var lb *loadBar
	if bar {
		lb = newLoadBar(b.stderr, "loading "+filepath.Base(path))
		opt.Progress = lb.update
	}
	m, err := runtime.Load(path, opt)
	if lb != nil {
		lb.finish()
	}
	if err != nil {
		be.Close()
		return nil, nil, err
	}
	return m, func() { m.Close(); be.Close() }, nil
}

// yes writes a flag of a device's description.
func yes(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// mib writes a device's memory size.
func mib(n uint64) string {
	if n >= 1<<30 {
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	}
	return fmt.Sprintf("%d MiB", n>>20)
}
