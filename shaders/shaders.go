package shaders

import (
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strings"
)

//go:embed spv/*.spv
var spv embed.FS

// SPIRV returns the compiled module of a shader by name ("add_f32" for add_f32.comp).
func SPIRV(name string) ([]byte, error) {
	b, err := spv.ReadFile("spv/" + name + ".spv")
	if err != nil {
		return nil, fmt.Errorf("shaders: no shader %q", name)
	}
	return b, nil
}

// Names lists the embedded shaders, sorted.
func Names() []string {
	entries, _ := fs.ReadDir(spv, "spv")
	var names []string
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), ".spv"); ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}
