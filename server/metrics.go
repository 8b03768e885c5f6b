package server

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/forma-llm/forma/runtime"
)

// StepObserver receives what only the engine's scheduler knows: after each forward pass, the sequences it
// carried and its tokens. The runtime's engine calls it (runtime.Options.OnPass, which the server sets when it
// loads a model); a server embedded elsewhere reaches it through Server.StepObserver.
type StepObserver interface {
	ObserveStep(sequences, tokens int)
}

// Metrics are the server's counters and histograms, written in Prometheus' text format by /metrics.
type Metrics struct {
	mu       sync.Mutex
	requests map[[3]string]uint64 // {api, endpoint, status} -> count

	promptTokens, cachedTokens, generatedTokens atomic.Uint64

	ttft, perToken, stepSeqs, stepTokens *histogram

	// gauges returns the sequences in use, the requests queued and the models loaded, at scrape time.
	gauges func() (active, queued, models int)
}

func newMetrics() *Metrics {
	lat := []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}
	sizes := []float64{1, 2, 4, 8, 16, 32, 64, 128, 256, 512}
	return &Metrics{requests: map[[3]string]uint64{},
		ttft: newHistogram(lat), perToken: newHistogram(lat), stepSeqs: newHistogram(sizes),
		stepTokens: newHistogram(sizes)}
}

func (m *Metrics) countRequest(api, endpoint string, status int) {
	m.mu.Lock()
	m.requests[[3]string{api, endpoint, strconv.Itoa(status)}]++
	m.mu.Unlock()
}

func (m *Metrics) observeTTFT(d time.Duration)         { m.ttft.observe(d.Seconds()) }
func (m *Metrics) observeTokenLatency(d time.Duration) { m.perToken.observe(d.Seconds()) }

func (m *Metrics) addTokens(st runtime.Stats) {
	m.promptTokens.Add(uint64(st.PromptTokens))
	m.cachedTokens.Add(uint64(st.CachedTokens))
	m.generatedTokens.Add(uint64(st.Generated))
}

// ObserveStep implements StepObserver.
func (m *Metrics) ObserveStep(sequences, tokens int) {
	m.stepSeqs.observe(float64(sequences))
	m.stepTokens.observe(float64(tokens))
}

// write writes every metric in Prometheus' text exposition format.
func (m *Metrics) write(w io.Writer) {
	m.mu.Lock()
	keys := make([][3]string, 0, len(m.requests))
	for k := range m.requests {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return slices.Compare(keys[i][:], keys[j][:]) < 0 })
	fmt.Fprintf(w, "# HELP forma_requests_total HTTP requests by API, endpoint and status.\n# TYPE forma_requests_total counter\n")
	for _, k := range keys {
		fmt.Fprintf(w, "forma_requests_total{api=%q,endpoint=%q,code=%q} %d\n", k[0], k[1], k[2], m.requests[k])
	}
	m.mu.Unlock()
	counter := func(name, help string, v uint64) {
		fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s counter\n%s %d\n", name, help, name, name, v)
	}
	counter("forma_prompt_tokens_total", "Prompt tokens of finished generations (cached ones included).", m.promptTokens.Load())
	counter("forma_prompt_cached_tokens_total", "Prompt tokens found in a cache and not evaluated again.", m.cachedTokens.Load())
	counter("forma_generated_tokens_total", "Tokens generated.", m.generatedTokens.Load())
	active, queued, models := 0, 0, 0
	if m.gauges != nil {
		active, queued, models = m.gauges()
	}
	gauge := func(name, help string, v int) {
		fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s gauge\n%s %d\n", name, help, name, name, v)
	}
	gauge("forma_active_sequences", "Sequences generating now.", active)
	gauge("forma_queue_depth", "Requests waiting for a sequence.", queued)
	gauge("forma_models_loaded", "Models loaded.", models)
	m.ttft.write(w, "forma_time_to_first_token_seconds", "Time from a request's arrival at the engine (queueing included) to its first token.")
	m.perToken.write(w, "forma_time_per_output_token_seconds", "Time between successive generated tokens of a sequence.")
	m.stepSeqs.write(w, "forma_batch_sequences", "Sequences per forward pass (fed by the batched scheduler).")
	m.stepTokens.write(w, "forma_batch_tokens", "Tokens per forward pass (fed by the batched scheduler).")
}

// histogram is a Prometheus histogram with fixed upper bounds.
type histogram struct {
	bounds []float64
	mu     sync.Mutex
	counts []uint64 // per bucket, not cumulative; the last is +Inf
	sum    float64
	n      uint64
}

func newHistogram(bounds []float64) *histogram {
	return &histogram{bounds: bounds, counts: make([]uint64, len(bounds)+1)}
}

func (h *histogram) observe(v float64) {
	i := sort.SearchFloat64s(h.bounds, v)
	h.mu.Lock()
	h.counts[i]++
	h.sum += v
	h.n++
	h.mu.Unlock()
}

func (h *histogram) write(w io.Writer, name, help string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s histogram\n", name, help, name)
	cum := uint64(0)
	for i, b := range h.bounds {
		cum += h.counts[i]
		fmt.Fprintf(w, "%s_bucket{le=%q} %d\n", name, strconv.FormatFloat(b, 'g', -1, 64), cum)
	}
	cum += h.counts[len(h.bounds)]
	fmt.Fprintf(w, "%s_bucket{le=\"+Inf\"} %d\n%s_sum %s\n%s_count %d\n", name, cum, name,
		strconv.FormatFloat(h.sum, 'g', -1, 64), name, h.n)
}
