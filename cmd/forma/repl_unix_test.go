//go:build linux || darwin

package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/forma-llm/forma/internal/testdir"
)

// term is a forma process on a pseudo-terminal.
type ptyTerm struct {
	t    *testing.T
	f    *os.File
	mu   sync.Mutex
	buf  bytes.Buffer
	seen int // output before this offset has been matched
}

func (p *ptyTerm) read() {
	b := make([]byte, 4096)
	for {
		n, err := p.f.Read(b)
		p.mu.Lock()
		p.buf.Write(b[:n])
		p.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// expect waits for s in the output after what was matched before, and returns the output up to it.
func (p *ptyTerm) expect(s string) string {
	p.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		p.mu.Lock()
		out := p.buf.String()
		p.mu.Unlock()
		if i := strings.Index(out[p.seen:], s); i >= 0 {
			got := out[p.seen : p.seen+i]
			p.seen += i + len(s)
			return got
		}
		time.Sleep(10 * time.Millisecond)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.t.Fatalf("no %q in the output after offset %d:\n%s", s, p.seen, p.buf.String())
	return ""
}

func (p *ptyTerm) send(s string) {
	p.t.Helper()
	if _, err := io.WriteString(p.f, s); err != nil {
		p.t.Fatal(err)
	}
}

// TestREPL drives `forma run MODEL` on a pseudo-terminal: a question and its answer, a multi-line message,
// /set, /show info, Ctrl-C during an answer (the answer stops, the program does not), Ctrl-C at an empty
// prompt (a hint), /bye.
func TestREPL(t *testing.T) {
	model := filepath.Join(testdir.Sub(t, "models"), "rand-qwen3-chat-q8_0.gguf")
	cmd := exec.Command(os.Args[0], "run", "-n", "6", "--ignore-eos", "-t", "1", "--verbose", model)
	cmd.Env = append(os.Environ(), selfExecEnv+"=1")
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 200})
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer f.Close()
	p := &ptyTerm{t: t, f: f}
	go p.read()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
		}
	}()

	p.expect(">>> ")
	p.send("Why is the sea blue?\r")
	if out := p.expect(">>> "); !strings.Contains(out, "stop: max-tokens") || strings.Contains(out, "(stopped)") {
		t.Errorf("first answer:\n%s", out)
	}

	p.send(`"""First line` + "\r")
	p.expect("... ")
	p.send(`second line"""` + "\r")
	p.expect("prompt: ")
	p.expect(">>> ")

	p.send("/set temperature 0.2\r")
	p.expect("Set parameter 'temperature' to '0.2'")
	p.expect(">>> ")
	p.send("/set num_predict -1\r")
	p.expect("Set parameter 'num_predict' to '-1'")
	p.expect(">>> ")
	p.send(`/set dry_sequence_breakers ["\n", "## "]` + "\r")
	p.expect(`Set parameter 'dry_sequence_breakers' to '["\n", "## "]'`)
	p.expect(">>> ")
	p.send("/show info\r")
	info := p.expect(">>> ")
	if !regexp.MustCompile(`temperature +0.2\r?\n`).MatchString(info) || !strings.Contains(info, `["\n","## "]`) ||
		!strings.Contains(info, "qwen3") {
		t.Errorf("/show info after /set:\n%s", info)
	}

	// An answer without a token limit runs until the context (4096) is full: stop it.
	p.send("Tell me a very long story.\r")
	p.expect("Tell me a very long story.")
	time.Sleep(300 * time.Millisecond) // let it generate
	p.send("\x03")
	stats := p.expect("(stopped)")
	p.expect(">>> ")
	if !strings.Contains(stats, "stop: cancelled") {
		t.Errorf("after Ctrl-C: %q", stats)
	}

	p.send("\x03")
	p.expect("Use Ctrl + d or /bye to exit.")
	p.expect(">>> ")

	p.send("/clear\r")
	p.expect("Cleared session context")
	p.send("/bye\r")
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("exit: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("forma did not exit after /bye")
	}
}

// TestREPLCtrlD: Ctrl-D at an empty prompt exits.
func TestREPLCtrlD(t *testing.T) {
	model := filepath.Join(testdir.Sub(t, "models"), "stories260K-Q8_0.gguf")
	cmd := exec.Command(os.Args[0], "run", model)
	cmd.Env = append(os.Environ(), selfExecEnv+"=1")
	f, err := pty.Start(cmd)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer f.Close()
	p := &ptyTerm{t: t, f: f}
	go p.read()
	p.expect(">>> ")
	p.send("/?\r")
	p.expect("Available commands")
	p.expect(">>> ")
	p.send("\x04")
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit: %v", err)
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("forma did not exit on Ctrl-D")
	}
}
