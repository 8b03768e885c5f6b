package hub

import (
	"path/filepath"
	"runtime"
	"slices"
	"testing"
)

// FromEnv reads the store, the endpoints, the token and the caches from the environment, in huggingface_hub's
// order of precedence.
func TestFromEnv(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("the home folder is not $HOME here")
	}
	for _, k := range []string{EnvModels, EnvHFEndpoint, EnvRegistry, EnvHFToken, EnvHFHubCache, "HUGGINGFACE_HUB_CACHE",
		EnvHFHome, "XDG_CACHE_HOME", EnvLlamaCache, EnvOllamaStore} {
		t.Setenv(k, "")
	}
	t.Setenv("HOME", "/home/u")
	c := FromEnv()
	if c.Store.Dir != filepath.FromSlash("/home/u/.forma/models") || c.HFEndpoint != DefaultHFEndpoint ||
		c.Registry != DefaultRegistry || c.Token != "" || c.OllamaDir != filepath.FromSlash("/home/u/.ollama/models") ||
		c.HFCaches[0] != filepath.FromSlash("/home/u/.cache/huggingface/hub") {
		t.Errorf("defaults: %+v", c)
	}
	t.Setenv(EnvModels, "/m")
	t.Setenv(EnvHFEndpoint, "https://mirror.example/")
	t.Setenv(EnvRegistry, "https://reg.example")
	t.Setenv(EnvHFToken, "hf_x")
	t.Setenv(EnvHFHome, "/hfhome")
	t.Setenv(EnvLlamaCache, "/llama")
	t.Setenv(EnvOllamaStore, "/ollama")
	c = FromEnv()
	if c.Store.Dir != "/m" || c.HFEndpoint != "https://mirror.example" || c.Registry != "https://reg.example" ||
		c.Token != "hf_x" || c.OllamaDir != "/ollama" ||
		!slices.Equal(c.HFCaches, []string{filepath.Join("/hfhome", "hub"), "/llama"}) {
		t.Errorf("from the environment: %+v", c)
	}
	t.Setenv(EnvHFHubCache, "/hubcache")
	if c = FromEnv(); c.HFCaches[0] != "/hubcache" {
		t.Errorf("HF_HUB_CACHE before HF_HOME: %v", c.HFCaches)
	}
}
