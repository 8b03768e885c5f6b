package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// hfEntry is one entry of the Hub's tree listing (GET /api/models/ORG/REPO/tree/REV?recursive=true).
type hfEntry struct {
	Type string `json:"type"` // file or directory
	Path string `json:"path"`
	Size int64  `json:"size"`
	OID  string `json:"oid"` // the git blob id
	LFS  *struct {
		OID  string `json:"oid"` // the SHA-256 of the content
		Size int64  `json:"size"`
	} `json:"lfs"`
}

// AuthError is a Hub repository that refused access: gated, private, or (the Hub answers alike without a
// token) missing.
type AuthError struct {
	Repo, Endpoint string
	Status         int
	TokenSet       bool
}

func (e *AuthError) Error() string {
	page := e.Endpoint + "/" + e.Repo
	if e.TokenSet {
		return fmt.Sprintf("%s: access denied (%d) with the token in $%s: the repository is gated or private; "+
			"accept its licence at %s with the account the token belongs to", e.Repo, e.Status, EnvHFToken, page)
	}
	return fmt.Sprintf("%s: access denied (%d): the repository does not exist, or is gated or private; for a "+
		"gated one, accept its licence at %s and set $%s to an access token of yours", e.Repo, e.Status, page, EnvHFToken)
}

// hfURL joins the endpoint and path segments, each escaped.
func (c *Client) hfURL(segs ...string) string {
	var b strings.Builder
	b.WriteString(c.HFEndpoint)
	for _, s := range segs {
		for _, p := range strings.Split(s, "/") {
			b.WriteByte('/')
			b.WriteString(url.PathEscape(p))
		}
	}
	return b.String()
}

func (c *Client) hfHeader() http.Header {
	h := http.Header{"User-Agent": {"forma"}}
	if c.Token != "" {
		h.Set("Authorization", "Bearer "+c.Token)
	}
	return h
}

// hfGet fetches a Hub API URL with retries and decodes its JSON into v; it returns the next page's URL from
// a Link header, if any.
func (c *Client) hfGet(ctx context.Context, repo, u string, v any) (next string, err error) {
	err = c.retry(ctx, "GET "+u, func() error {
		rctx, cancel := c.apiContext(ctx)
		defer cancel()
		req, err := http.NewRequestWithContext(rctx, http.MethodGet, u, nil)
		if err != nil {
			return permanent{err}
		}
		req.Header = c.hfHeader()
		req.Header.Set("Accept", "application/json")
		resp, err := c.HTTP.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if err := c.hfStatus(repo, resp); err != nil {
			return err
		}
		if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<20)).Decode(v); err != nil {
			return permanent{fmt.Errorf("GET %s: bad JSON: %w", u, err)}
		}
		next = nextLink(resp.Header.Get("Link"))
		return nil
	})
	return next, err
}

// hfStatus maps a Hub response that is not a success to an error.
func (c *Client) hfStatus(repo string, resp *http.Response) error {
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 400:
		return nil
	case resp.StatusCode == http.StatusUnauthorized, resp.StatusCode == http.StatusForbidden:
		return permanent{&AuthError{Repo: repo, Endpoint: c.HFEndpoint, Status: resp.StatusCode, TokenSet: c.Token != ""}}
	case resp.StatusCode == http.StatusNotFound:
		return permanent{fmt.Errorf("%s: not found on %s (%s)", repo, c.HFEndpoint, redact(resp.Request.URL.String()))}
	}
	return statusError(resp)
}

var linkNext = regexp.MustCompile(`<([^>]+)>\s*;\s*rel="?next"?`)

// nextLink returns the rel="next" URL of a Link header, as the Hub paginates long listings.
func nextLink(h string) string {
	if m := linkNext.FindStringSubmatch(h); m != nil {
		return m[1]
	}
	return ""
}

// hfCommit returns the commit of the repository's main branch (else its first branch), from /refs.
func (c *Client) hfCommit(ctx context.Context, repo string) (string, error) {
	var refs struct {
		Branches []struct {
			Name         string `json:"name"`
			TargetCommit string `json:"targetCommit"`
		} `json:"branches"`
	}
	if _, err := c.hfGet(ctx, repo, c.hfURL("api/models", repo, "refs"), &refs); err != nil {
		return "", err
	}
	commit := ""
	for _, b := range refs.Branches {
		if !validCommit(b.TargetCommit) {
			continue
		}
		if b.Name == "main" {
			return b.TargetCommit, nil
		}
		if commit == "" {
			commit = b.TargetCommit
		}
	}
	if commit == "" {
		return "", fmt.Errorf("%s: the Hub lists no branch", repo)
	}
	return commit, nil
}

func validCommit(s string) bool {
	if len(s) != 40 {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// hfTree lists every file of the repository at commit (following the listing's pages).
func (c *Client) hfTree(ctx context.Context, repo, commit string) ([]hfEntry, error) {
	u := c.hfURL("api/models", repo, "tree", commit) + "?recursive=true"
	var all []hfEntry
	for u != "" {
		var page []hfEntry
		next, err := c.hfGet(ctx, repo, u, &page)
		if err != nil {
			return nil, err
		}
		all = append(all, page...)
		if next != "" && !strings.HasPrefix(next, c.HFEndpoint+"/") {
			return nil, fmt.Errorf("%s: the listing's next page is on another host (%s)", repo, redact(next))
		}
		u = next
	}
	var files []hfEntry
	for _, e := range all {
		if e.Type == "file" && safeRepoPath(e.Path) {
			files = append(files, e)
		}
	}
	return files, nil
}

// safeRepoPath refuses paths that would leave a snapshot folder.
func safeRepoPath(p string) bool {
	if p == "" || strings.HasPrefix(p, "/") || strings.Contains(p, "\\") {
		return false
	}
	for _, s := range strings.Split(p, "/") {
		if s == "" || s == "." || s == ".." {
			return false
		}
	}
	return true
}

// hfFileMeta asks the resolve URL of a file for its metadata without following its redirect to the CDN, as
// huggingface_hub does: X-Linked-Etag (the LFS SHA-256) and X-Linked-Size, which must agree with the listing.
func (c *Client) hfFileMeta(ctx context.Context, repo, commit string, e hfEntry) (blob, error) {
	b := blob{name: e.Path, url: c.hfURL(repo, "resolve", commit, e.Path), header: c.hfHeader()}
	if e.LFS == nil || !validDigest("sha256:"+e.LFS.OID) {
		return b, fmt.Errorf("%s: %s is not stored with Git LFS, so the Hub gives no SHA-256 to check it against", repo, e.Path)
	}
	b.digest, b.size = "sha256:"+e.LFS.OID, e.LFS.Size
	noFollow := *c.HTTP
	noFollow.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	err := c.retry(ctx, "HEAD "+b.url, func() error {
		rctx, cancel := c.apiContext(ctx)
		defer cancel()
		req, err := http.NewRequestWithContext(rctx, http.MethodHead, b.url, nil)
		if err != nil {
			return permanent{err}
		}
		req.Header = c.hfHeader()
		resp, err := noFollow.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if err := c.hfStatus(repo, resp); err != nil {
			return err
		}
		etag := strings.Trim(strings.TrimPrefix(resp.Header.Get("X-Linked-Etag"), "W/"), `"`)
		if etag != "" && etag != e.LFS.OID {
			return permanent{fmt.Errorf("%s: the Hub's listing and its file disagree on the SHA-256 (%s, %s)", e.Path, e.LFS.OID, etag)}
		}
		if s := resp.Header.Get("X-Linked-Size"); s != "" {
			if n, err := strconv.ParseInt(s, 10, 64); err != nil || n != e.LFS.Size {
				return permanent{fmt.Errorf("%s: the Hub's listing and its file disagree on the size (%d, %s)", e.Path, e.LFS.Size, s)}
			}
		}
		return nil
	})
	return b, err
}

// hfPlan lists a Hub repository and picks the files of r: the model for its quant, all its parts, and the
// vision projector when mmproj is set.
func (c *Client) hfPlan(ctx context.Context, r Ref, mmproj bool) (*Manifest, []blob, error) {
	commit, err := c.hfCommit(ctx, r.Repo)
	if err != nil {
		return nil, nil, err
	}
	entries, err := c.hfTree(ctx, r.Repo, commit)
	if err != nil {
		return nil, nil, err
	}
	byPath := map[string]hfEntry{}
	var paths []string
	for _, e := range entries {
		byPath[e.Path] = e
		paths = append(paths, e.Path)
	}
	cand, err := chooseModel(r.Repo, paths, r.Tag)
	if err != nil {
		return nil, nil, err
	}
	tag := cand.Tag
	if r.Tag != "" {
		tag = strings.ToUpper(r.Tag)
	}
	m := &Manifest{Name: Ref{Registry: HuggingFace, Repo: r.Repo, Tag: tag}.Name(), Registry: HuggingFace,
		Repo: r.Repo, Tag: tag, Revision: commit, Source: c.HFEndpoint + "/" + r.Repo, Quant: cand.Tag}
	type pick struct{ path, role string }
	picks := make([]pick, 0, len(cand.Parts)+1)
	for _, p := range cand.Parts {
		picks = append(picks, pick{p, RoleModel})
	}
	if mmproj {
		p, ok := chooseMMProj(paths, cand)
		if !ok {
			return nil, nil, errors.New(r.Repo + " has no mmproj file (vision projector) beside the model")
		}
		picks = append(picks, pick{p, RoleMMProj})
	}
	var blobs []blob
	for _, p := range picks {
		b, err := c.hfFileMeta(ctx, r.Repo, commit, byPath[p.path])
		if err != nil {
			return nil, nil, err
		}
		blobs = append(blobs, b)
		m.Files = append(m.Files, File{Path: p.path, Role: p.role, Digest: b.digest, Size: b.size})
		m.Size += b.size
	}
	m.Digest = m.Files[0].Digest
	return m, blobs, nil
}
