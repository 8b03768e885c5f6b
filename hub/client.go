package hub

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Environment variables the client reads (FromEnv).
const (
	EnvHFEndpoint  = "HF_ENDPOINT"    // the Hub, or a mirror of it
	EnvHFToken     = "HF_TOKEN"       // a Hub access token, for gated and private repositories
	EnvRegistry    = "FORMA_REGISTRY" // Ollama's registry, or a mirror of it
	EnvHFHubCache  = "HF_HUB_CACHE"   // huggingface_hub's cache
	EnvHFHome      = "HF_HOME"        // its home: the cache is HF_HOME/hub
	EnvLlamaCache  = "LLAMA_CACHE"    // llama.cpp's cache
	EnvOllamaStore = "OLLAMA_MODELS"  // Ollama's store
)

// Defaults of the client.
const (
	DefaultHFEndpoint   = "https://huggingface.co"
	DefaultRegistry     = "https://registry.ollama.ai"
	DefaultConnections  = 4
	DefaultSplitSize    = 64 << 20
	DefaultRetries      = 6
	DefaultStallTimeout = 30 * time.Second
	DefaultRetryBase    = time.Second
	maxRetryWait        = 5 * time.Minute
)

// Client pulls models into a store and resolves names. The zero value is not usable: build one with FromEnv
// and change what you need before the first call.
type Client struct {
	Store      Store
	HFEndpoint string // the Hub's base URL
	Registry   string // Ollama registry's base URL
	Token      string // Hub token sent as a bearer token to HFEndpoint (never to the hosts it redirects to)
	HFCaches   []string
	OllamaDir  string // Ollama's store ("" for none)
	HTTP       *http.Client

	Connections  int           // parallel connections for one large file
	SplitSize    int64         // a file gets one more connection per SplitSize bytes, up to Connections
	Retries      int           // attempts in a row without a byte of progress before a download gives up
	RetryBase    time.Duration // the first wait before retrying; doubled each time (a Retry-After header wins)
	StallTimeout time.Duration // a connection that delivers no byte for this long is dropped and resumed

	// DiskFree reports the bytes free for a folder; a pull that needs more stops before it starts. Nil skips
	// the check.
	DiskFree func(dir string) (uint64, error)

	sleep func(ctx context.Context, d time.Duration) error // the wait between retries (tests record it)
}

// FromEnv returns a client for the store DefaultDir and the endpoints, token and caches the environment names.
func FromEnv() *Client {
	home, _ := os.UserHomeDir()
	c := &Client{
		Store:        Store{Dir: DefaultDir()},
		HFEndpoint:   envOr(EnvHFEndpoint, DefaultHFEndpoint),
		Registry:     envOr(EnvRegistry, DefaultRegistry),
		Token:        os.Getenv(EnvHFToken),
		HFCaches:     hfCaches(home),
		OllamaDir:    envOr(EnvOllamaStore, filepath.Join(home, ".ollama", "models")),
		HTTP:         &http.Client{},
		Connections:  DefaultConnections,
		SplitSize:    DefaultSplitSize,
		Retries:      DefaultRetries,
		RetryBase:    DefaultRetryBase,
		StallTimeout: DefaultStallTimeout,
		DiskFree:     diskFree,
	}
	if home == "" && os.Getenv(EnvOllamaStore) == "" {
		c.OllamaDir = ""
	}
	return c
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return strings.TrimRight(v, "/")
	}
	return def
}

// hfCaches returns the Hugging Face-layout caches to search: huggingface_hub's (HF_HUB_CACHE, else
// HF_HOME/hub, else XDG_CACHE_HOME/huggingface/hub, else ~/.cache/huggingface/hub) and llama.cpp's
// (LLAMA_CACHE, else the user cache folder's llama.cpp).
func hfCaches(home string) []string {
	var out []string
	switch {
	case os.Getenv(EnvHFHubCache) != "":
		out = append(out, os.Getenv(EnvHFHubCache))
	case os.Getenv("HUGGINGFACE_HUB_CACHE") != "":
		out = append(out, os.Getenv("HUGGINGFACE_HUB_CACHE"))
	case os.Getenv(EnvHFHome) != "":
		out = append(out, filepath.Join(os.Getenv(EnvHFHome), "hub"))
	case os.Getenv("XDG_CACHE_HOME") != "":
		out = append(out, filepath.Join(os.Getenv("XDG_CACHE_HOME"), "huggingface", "hub"))
	case home != "":
		out = append(out, filepath.Join(home, ".cache", "huggingface", "hub"))
	}
	if d := os.Getenv(EnvLlamaCache); d != "" {
		out = append(out, d)
	} else if d, err := os.UserCacheDir(); err == nil {
		out = append(out, filepath.Join(d, "llama.cpp"))
	}
	return out
}

// withDefaults returns a copy of c with the defaults in the fields left zero.
func (c *Client) withDefaults() *Client {
	d := *c
	if d.HTTP == nil {
		d.HTTP = http.DefaultClient
	}
	if d.Connections <= 0 {
		d.Connections = 1
	}
	if d.RetryBase <= 0 {
		d.RetryBase = DefaultRetryBase
	}
	if d.StallTimeout <= 0 {
		d.StallTimeout = DefaultStallTimeout
	}
	return &d
}

// apiContext bounds one API request (a listing, a manifest, a HEAD): twice the stall timeout, then it is
// retried.
func (c *Client) apiContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, 2*c.StallTimeout)
}

// HTTPError is an unexpected HTTP status.
type HTTPError struct {
	URL        string
	Status     int
	RetryAfter time.Duration // from a Retry-After header, 0 if none
	Msg        string        // the server's error message, if it gave one
}

func (e *HTTPError) Error() string {
	s := fmt.Sprintf("GET %s: %d %s", e.URL, e.Status, http.StatusText(e.Status))
	if e.Msg != "" {
		s += ": " + e.Msg
	}
	return s
}

// retryable reports whether an HTTP status is worth another try: too many requests, a timeout, a server error.
func (e *HTTPError) retryable() bool {
	return e.Status == http.StatusTooManyRequests || e.Status == http.StatusRequestTimeout || e.Status >= 500
}

// parseRetryAfter reads a Retry-After header: seconds, or an HTTP date.
func parseRetryAfter(h string) time.Duration {
	if h == "" {
		return 0
	}
	if s, err := strconv.Atoi(strings.TrimSpace(h)); err == nil && s >= 0 {
		return min(time.Duration(s)*time.Second, maxRetryWait)
	}
	if t, err := http.ParseTime(h); err == nil {
		return min(max(time.Until(t), 0), maxRetryWait)
	}
	return 0
}

// permanent marks an error that no retry can mend.
type permanent struct{ error }

func (p permanent) Unwrap() error { return p.error }

// isRetryable: everything is, but a permanent error, an HTTP status that says no, and cancellation.
func isRetryable(err error) bool {
	var p permanent
	var h *HTTPError
	switch {
	case errors.As(err, &p), errors.Is(err, context.Canceled):
		return false
	case errors.As(err, &h):
		return h.retryable()
	}
	return true
}

// backoff returns the wait before attempt n (1-based) of something that failed with err.
func (c *Client) backoff(n int, err error) time.Duration {
	var h *HTTPError
	if errors.As(err, &h) && h.RetryAfter > 0 {
		return h.RetryAfter
	}
	d := c.RetryBase << min(n-1, 10)
	return min(d, 30*time.Second)
}

func (c *Client) wait(ctx context.Context, d time.Duration) error {
	if c.sleep != nil {
		return c.sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// retry runs f until it succeeds, fails for good, or fails Retries times in a row.
func (c *Client) retry(ctx context.Context, what string, f func() error) error {
	for n := 1; ; n++ {
		err := f()
		if err == nil || !isRetryable(err) || ctx.Err() != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return err
		}
		if n >= c.Retries {
			return fmt.Errorf("%s: giving up after %d attempts: %w", what, n, err)
		}
		if err := c.wait(ctx, c.backoff(n, err)); err != nil {
			return err
		}
	}
}
