//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestServe runs `forma serve` in-process on a random port: its greedy chat answer equals `forma run --temp 0`'s
// for the same prompt and template, and SIGINT shuts it down with exit status 0.
func TestServe(t *testing.T) {
	model := storiesPath(t)
	rc, want, errs := forma("run", "--temp", "0", "-n", "20", "-t", "1", "--chat-template", "chatml", model, "Once upon a time")
	if rc != 0 {
		t.Fatalf("forma run: %d %s", rc, errs)
	}
	var logs lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- mainArgs([]string{"serve", "--port", "0", "-t", "1", "--chat-template", "chatml", model}, &logs, &logs)
	}()
	addrRE := regexp.MustCompile(`msg=listening addr=(\S+)`)
	var url string
	for deadline := time.Now().Add(10 * time.Second); url == ""; time.Sleep(5 * time.Millisecond) {
		if m := addrRE.FindStringSubmatch(logs.String()); m != nil {
			url = "http://" + m[1]
		}
		if time.Now().After(deadline) {
			t.Fatalf("no listening line: %s", logs.String())
		}
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		resp, err := http.Get(url + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("not ready: %s", logs.String())
		}
	}
	resp, err := http.Post(url+"/v1/chat/completions", "application/json", strings.NewReader(
		`{"messages":[{"role":"user","content":"Once upon a time"}],"temperature":0,"max_tokens":20}`))
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Choices []struct{ Message struct{ Content string } }
	}
	err = json.NewDecoder(resp.Body).Decode(&r)
	resp.Body.Close()
	if err != nil || len(r.Choices) != 1 {
		t.Fatalf("%v %+v", err, r)
	}
	// forma run ends its answer with a newline when the answer does not.
	if got := r.Choices[0].Message.Content; got != strings.TrimSuffix(want, "\n") && got+"\n" != want {
		t.Errorf("serve: %q, run: %q", got, want)
	}
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case rc := <-done:
		if rc != 0 {
			t.Errorf("forma serve exited %d after SIGINT: %s", rc, logs.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("forma serve did not stop on SIGINT")
	}
	if !strings.Contains(logs.String(), "shutting down") {
		t.Errorf("no shutdown line in %s", logs.String())
	}
}
