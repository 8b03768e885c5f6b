package bundle

import (
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/forma-llm/forma/gguf"
)

// Options say what Write bundles.
type Options struct {
	Exe    string // a forma executable (not itself a bundle)
	Model  string // the GGUF file to carry
	Out    string // the bundle to write; replaced only once it is complete
	Target string // "GOOS/GOARCH" Exe must run on; "" takes Exe as it is
}

// Write writes a bundle: Exe carrying Model. The model must open as a GGUF file. It returns where the model
// lies in the bundle and the bundle's platform.
func Write(o Options) (*Payload, Target, error) {
	exe, err := os.Open(o.Exe)
	if err != nil {
		return nil, Target{}, err
	}
	defer exe.Close()
	tgt, fm, err := targetOf(exe)
	if err != nil {
		return nil, Target{}, fmt.Errorf("%s: %w", o.Exe, err)
	}
	if o.Target != "" {
		want, err := ParseTarget(o.Target)
		if err != nil {
			return nil, Target{}, err
		}
		if want != tgt {
			return nil, Target{}, fmt.Errorf("%s is a %s executable, not %s: pass the %s release binary with --from",
				o.Exe, tgt, want, want)
		}
	}
	switch p, err := Find(o.Exe); {
	case err != nil:
		return nil, Target{}, err
	case p != nil:
		return nil, Target{}, fmt.Errorf("%s already carries a model: bundle from a plain forma executable", o.Exe)
	}
	m, err := gguf.Open(o.Model)
	if err != nil {
		return nil, Target{}, err
	}
	modelSize := m.Size
	m.Close()
	st, err := exe.Stat()
	if err != nil {
		return nil, Target{}, err
	}

	out, err := os.CreateTemp(filepath.Dir(o.Out), ".forma-bundle-*")
	if err != nil {
		return nil, Target{}, err
	}
	defer func() {
		if out != nil {
			out.Close()
			os.Remove(out.Name())
		}
	}()
	p := &Payload{Path: o.Out, Size: modelSize}
	writeModel := func(w io.Writer) error { return copyModel(w, o.Model, p) }
	if fm == formatMachO {
		plan, err := planMachO(exe, st.Size(), modelSize, filepath.Base(o.Out))
		if err != nil {
			return nil, Target{}, fmt.Errorf("%s: %w", o.Exe, err)
		}
		p.Offset = plan.modelOff
		err = plan.write(out, exe, writeModel)
	} else {
		p.Offset = alignUp(st.Size(), Align)
		w := &offsetWriter{w: out}
		w.copyFrom(exe, 0, st.Size())
		w.zeros(p.Offset - w.n)
		if w.err == nil {
			w.err = writeModel(w)
		}
		err = w.err
	}
	if err == nil {
		err = out.Chmod(0o755)
	}
	if err == nil {
		err = out.Close()
	}
	if err != nil {
		return nil, Target{}, fmt.Errorf("writing %s: %w", o.Out, err)
	}
	if err := os.Rename(out.Name(), o.Out); err != nil {
		return nil, Target{}, err
	}
	out = nil
	return p, tgt, nil
}

// copyModel copies the model to w, hashing it, then writes the trailer p describes.
func copyModel(w io.Writer, path string, p *Payload) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.CopyBuffer(io.MultiWriter(w, h), f, make([]byte, 1<<20))
	if err != nil {
		return err
	}
	if n != p.Size {
		return fmt.Errorf("%s changed while it was copied (%d bytes, expected %d)", path, n, p.Size)
	}
	copy(p.Sum[:], h.Sum(nil))
	_, err = w.Write(p.trailer())
	return err
}
