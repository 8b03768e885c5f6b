package hub

import (
	"fmt"
	"strings"
)

// Registry names where a model comes from.
type Registry string

// The registries a Ref can name.
const (
	HuggingFace Registry = "hf"     // the Hugging Face Hub: a repository of GGUF files
	Ollama      Registry = "ollama" // Ollama's registry: a manifest whose model layer is a GGUF blob
)

// Canonical hosts in model names; the transport may be a mirror (HF_ENDPOINT, FORMA_REGISTRY), the name stays.
const (
	hfHost     = "hf.co"
	ollamaHost = "ollama.com"
)

// Ref is a parsed model reference.
type Ref struct {
	Registry Registry
	Repo     string // "ORG/REPO" on the Hub; "NAMESPACE/NAME" at Ollama ("library/NAME" for the library)
	Tag      string // the quant on the Hub ("" means the default); the tag at Ollama ("latest" by default)
}

// Name is the ref's canonical name: hf.co/ORG/REPO[:QUANT] or ollama.com/NAMESPACE/NAME:TAG.
func (r Ref) Name() string {
	host := hfHost
	if r.Registry == Ollama {
		host = ollamaHost
	}
	if r.Tag == "" {
		return host + "/" + r.Repo
	}
	return host + "/" + r.Repo + ":" + r.Tag
}

func (r Ref) String() string { return r.Name() }

// hostPrefixes maps the host spellings a REF may start with to their registry.
var hostPrefixes = []struct {
	prefix string
	reg    Registry
}{
	{"https://huggingface.co/", HuggingFace}, {"https://hf.co/", HuggingFace}, {"huggingface.co/", HuggingFace},
	{"hf.co/", HuggingFace}, {"https://ollama.com/", Ollama}, {"https://registry.ollama.ai/", Ollama},
	{"ollama.com/", Ollama}, {"registry.ollama.ai/", Ollama},
}

// ParseRef parses a model reference:
//
//	hf.co/ORG/REPO[:QUANT], huggingface.co/ORG/REPO[:QUANT]  the Hugging Face Hub
//	ollama.com/[NAMESPACE/]NAME[:TAG], registry.ollama.ai/…  Ollama's registry
//	ORG/REPO[:QUANT]                                         the Hub, or Ollama with registry Ollama
//	NAME[:TAG]                                               Ollama's library (no Hub repository has one part)
//
// registry ("" for none) is the --registry flag: it decides between the two for a REF without a host, and a
// REF whose host names the other registry is an error.
func ParseRef(s string, registry Registry) (Ref, error) {
	if registry != "" && registry != HuggingFace && registry != Ollama {
		return Ref{}, fmt.Errorf("unknown registry %q (hf or ollama)", registry)
	}
	rest, reg := s, registry
	for _, h := range hostPrefixes {
		if len(rest) >= len(h.prefix) && strings.EqualFold(rest[:len(h.prefix)], h.prefix) {
			if registry != "" && registry != h.reg {
				return Ref{}, fmt.Errorf("%q names the %s registry, not %s", s, h.reg, registry)
			}
			rest, reg = rest[len(h.prefix):], h.reg
			break
		}
	}
	repo, tag, _ := strings.Cut(rest, ":")
	if strings.Contains(tag, ":") || strings.Contains(tag, "/") {
		return Ref{}, fmt.Errorf("%q: bad tag %q", s, tag)
	}
	parts := strings.Split(repo, "/")
	if reg == "" {
		reg = HuggingFace
		if len(parts) == 1 {
			reg = Ollama
		}
	}
	switch reg {
	case HuggingFace:
		if len(parts) != 2 || !validRepoID(repo) {
			return Ref{}, fmt.Errorf("%q is not a Hugging Face reference: want [hf.co/]ORG/REPO[:QUANT]", s)
		}
		return Ref{Registry: HuggingFace, Repo: repo, Tag: strings.TrimSpace(tag)}, nil
	default:
		if len(parts) == 1 {
			repo = "library/" + repo
			parts = append([]string{"library"}, parts...)
		}
		if len(parts) != 2 || !validRepoID(repo) {
			return Ref{}, fmt.Errorf("%q is not an Ollama reference: want [ollama.com/][NAMESPACE/]NAME[:TAG]", s)
		}
		if tag == "" {
			tag = "latest"
		}
		return Ref{Registry: Ollama, Repo: repo, Tag: tag}, nil
	}
}

// IsRemoteRef reports whether s can only mean a model to pull: it names a registry host or has the ORG/REPO
// shape of a Hub repository (a bare NAME could as well be a model that is simply not here, so it is not).
func IsRemoteRef(s string) bool {
	r, err := ParseRef(s, "")
	if err != nil {
		return false
	}
	return r.Registry == HuggingFace || strings.Contains(strings.SplitN(s, ":", 2)[0], "/")
}

// validRepoID checks the NAMESPACE/NAME part: letters, digits and _ . -, the punctuation never doubled nor at
// either end of a part (the rule the Hub applies), and no .gguf file name (a path, not a repository).
func validRepoID(id string) bool {
	if len(id) == 0 || len(id) > 256 || strings.HasSuffix(strings.ToLower(id), ".gguf") {
		return false
	}
	special := true
	for _, c := range id {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_':
			special = false
		case c == '/' || c == '.' || c == '-':
			if special {
				return false
			}
			special = true
		default:
			return false
		}
	}
	return !special
}
