package model

import (
	"fmt"

	"github.com/forma-llm/forma/gguf"
)

// optFloat reads the float ARCH.name, or def where the file does not have it: for the keys only some
// architectures read (llama.cpp reads them per architecture, so a file's stray key changes nothing elsewhere).
func (hp *HParams) optFloat(f *gguf.File, name string, def float32) (float32, error) {
	return kv{f, hp.Arch}.float(name, def)
}

// optBool reads the bool ARCH.name, or def where the file does not have it.
func (hp *HParams) optBool(f *gguf.File, name string, def bool) (bool, error) {
	v, err := f.Bool(hp.Arch + "." + name)
	if gguf.IsNotFound(err) {
		return def, nil
	}
	return v, err
}

// readAttnScale sets AttnScale from ARCH.attention.scale when the file has it (granite, mistral3).
func (hp *HParams) readAttnScale(f *gguf.File) error {
	s, err := hp.optFloat(f, "attention.scale", 0)
	if err == nil && s != 0 {
		hp.AttnScale = s
	}
	return err
}

func errMissingTensor(name string) error { return fmt.Errorf("missing tensor %q", name) }
