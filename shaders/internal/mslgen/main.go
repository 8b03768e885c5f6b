// Command mslgen translates shaders/spv/*.spv into Metal Shading Language (shaders/msl/*.metal) with the pinned
// upstream SPIRV-Cross and writes shaders/msl/manifest.txt: per kernel, the hashes of its SPIR-V and MSL and the
// table the Metal host binds it by. Run it with `go generate ./shaders/...` (after shadergen).
package main

import (
	"flag"
	"log"
	"os"
	"path/filepath"

	"github.com/forma-llm/forma/shaders/internal/msl"
)

func main() {
	spvDir := flag.String("spv", "spv", "folder of the .spv modules")
	out := flag.String("out", "msl", "folder for the .metal files and the manifest")
	root := flag.String("root", "..", "the module root (to find ../shared/bin/spirv-cross)")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("mslgen: ")
	tool, why := msl.FindTool(*root)
	if tool == "" {
		log.Fatal(why)
	}
	srcs, m, err := msl.Generate(tool, *spvDir)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		log.Fatal(err)
	}
	stale, _ := filepath.Glob(filepath.Join(*out, "*.metal"))
	for _, f := range stale {
		os.Remove(f)
	}
	for name, src := range srcs {
		if err := os.WriteFile(filepath.Join(*out, name+".metal"), src, 0o644); err != nil {
			log.Fatal(err)
		}
	}
	if err := m.Write(filepath.Join(*out, msl.ManifestName)); err != nil {
		log.Fatal(err)
	}
}
