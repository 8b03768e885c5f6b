package hub

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// ollamaManifestTypes are the manifest formats asked of the registry.
const ollamaManifestTypes = "application/vnd.docker.distribution.manifest.v2+json, application/vnd.oci.image.manifest.v1+json"

// ollamaPlan reads r's manifest from Ollama's registry (GET /v2/NAMESPACE/NAME/manifests/TAG) and lists its
// layers: the GGUF model, and the template, params, system, licence and projector layers kept beside it.
func (c *Client) ollamaPlan(ctx context.Context, r Ref) (*Manifest, []blob, error) {
	u := c.Registry + "/v2/" + r.Repo + "/manifests/" + r.Tag
	var om ollamaManifest
	err := c.retry(ctx, "GET "+u, func() error {
		rctx, cancel := c.apiContext(ctx)
		defer cancel()
		req, err := http.NewRequestWithContext(rctx, http.MethodGet, u, nil)
		if err != nil {
			return permanent{err}
		}
		req.Header.Set("Accept", ollamaManifestTypes)
		req.Header.Set("User-Agent", "forma")
		resp, err := c.HTTP.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if resp.StatusCode == http.StatusNotFound {
			return permanent{fmt.Errorf("%s: not found in the registry %s", r.Name(), c.Registry)}
		}
		if resp.StatusCode != http.StatusOK {
			return statusError(resp)
		}
		if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&om); err != nil {
			return permanent{fmt.Errorf("%s: bad manifest: %w", u, err)}
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	m := &Manifest{Name: r.Name(), Registry: Ollama, Repo: r.Repo, Tag: r.Tag, Source: c.Registry + "/" + r.Repo}
	var blobs []blob
	for _, l := range om.Layers {
		role, ok := ollamaRoles[l.MediaType]
		if !ok {
			continue
		}
		if !validDigest(l.Digest) || l.Size < 0 {
			return nil, nil, fmt.Errorf("%s: the manifest's %s layer has a bad digest %q", r.Name(), role, l.Digest)
		}
		if role == RoleModel && m.Digest != "" {
			return nil, nil, fmt.Errorf("%s: the manifest has several model layers; forma reads one", r.Name())
		}
		blobs = append(blobs, blob{name: role, url: c.Registry + "/v2/" + r.Repo + "/blobs/" + l.Digest,
			header: http.Header{"User-Agent": {"forma"}}, digest: l.Digest, size: l.Size})
		m.Files = append(m.Files, File{Path: role, Role: role, Digest: l.Digest, Size: l.Size})
		m.Size += l.Size
		if role == RoleModel {
			m.Digest = l.Digest
		}
	}
	if m.Digest == "" {
		return nil, nil, fmt.Errorf("%s: the manifest has no model layer (%s)", r.Name(), layerTypes(om.Layers))
	}
	return m, blobs, nil
}

func layerTypes(ls []ollamaLayer) string {
	var ts []string
	for _, l := range ls {
		ts = append(ts, l.MediaType)
	}
	if len(ts) == 0 {
		return "no layers"
	}
	return strings.Join(ts, ", ")
}
