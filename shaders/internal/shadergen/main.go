// Command shadergen compiles shaders/*.comp to shaders/spv/*.spv with glslangValidator, validates each with
// spirv-val when it is installed, and writes spv/manifest.txt. Run it with `go generate ./shaders/...`.
package main

import (
	"flag"
	"log"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/forma-llm/forma/shaders/internal/spvc"
)

func main() {
	src := flag.String("src", ".", "folder with the .comp sources")
	out := flag.String("out", "spv", "folder for the .spv files and the manifest")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("shadergen: ")
	glslang, err := exec.LookPath("glslangValidator")
	if err != nil {
		log.Fatal("glslangValidator not found: install glslang-tools (.ci/test-deps)")
	}
	spirvVal, _ := exec.LookPath("spirv-val")
	version, err := spvc.GlslangVersion(glslang)
	if err != nil {
		log.Fatal(err)
	}
	names, err := spvc.Sources(*src)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		log.Fatal(err)
	}
	stale, _ := filepath.Glob(filepath.Join(*out, "*.spv"))
	for _, f := range stale {
		os.Remove(f)
	}
	m := spvc.Manifest{Glslang: version}
	for _, name := range names {
		spv, err := spvc.Compile(glslang, *src, name)
		if err != nil {
			log.Fatal(err)
		}
		if spirvVal != "" {
			if err := spvc.Validate(spirvVal, spv); err != nil {
				log.Fatalf("%s: %v", name, err)
			}
		}
		if err := os.WriteFile(filepath.Join(*out, name+".spv"), spv, 0o644); err != nil {
			log.Fatal(err)
		}
		in, err := spvc.InputHash(*src, name)
		if err != nil {
			log.Fatal(err)
		}
		m.Entries = append(m.Entries, spvc.Entry{Name: name, InputHash: in, SPIRVHash: spvc.Hash(spv)})
	}
	if err := m.Write(filepath.Join(*out, spvc.ManifestName)); err != nil {
		log.Fatal(err)
	}
}
