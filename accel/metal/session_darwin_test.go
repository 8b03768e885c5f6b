//go:build darwin

package metal

import (
	"testing"

	"github.com/forma-llm/forma/internal/gputest"
)

// TestSession runs stories260K through runtime on Metal (gputest.Session): the Go heap stays small with the
// model loaded (weights live in the file mapping or Metal buffers), and a decode step — encoding a command
// buffer, running it, reading the logits — allocates nothing once compiled.
func TestSession(t *testing.T) {
	gputest.Session(t, newTestBackend(t, testGPU(t), Options{}))
}
