package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	goruntime "runtime"
	"strings"
	"syscall"
	"time"

	"github.com/forma-llm/forma/internal/bundle"
	"github.com/forma-llm/forma/web"
)

func init() {
	register(command{name: "app", summary: "chat in the browser: serve the chat page on this computer and open it",
		run: runApp})
}

// How long the app waits for the browser's first page, and after the last page closes, before it exits. Tests
// shorten them.
var (
	appFirstPage = 5 * time.Minute
	appGrace     = 15 * time.Second
)

// openBrowser opens url in the default browser; tests replace it.
var openBrowser = func(url string) error {
	var cmd *exec.Cmd
	switch goruntime.GOOS {
	case "darwin":
		cmd = exec.Command("open", url)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	default:
		cmd = exec.Command("xdg-open", url)
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait() // the opener returns at once or becomes the browser; either way it is not ours to keep
	return nil
}

// appConfig is one run of the app.
type appConfig struct {
	api     apiConfig
	addr    string
	browser bool // open the page, and exit when the last page has closed; else serve until interrupted
	stdout  io.Writer
	stderr  io.Writer
}

func runApp(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("app", "[-m MODEL]... [--no-browser] [--addr HOST:PORT] [flags]", stderr)
	var models stringList
	fs.Var(&models, "m", "`model` to chat with: a GGUF file or a model name (repeatable; default: "+
		"the model inside this executable, when it carries one)")
	be := addBackendFlags(fs, stderr)
	ctxLen := fs.Int("ctx", 0, "context size in `tokens` per model (0: 4096, or the model's training context if smaller)")
	addr := fs.String("addr", "127.0.0.1:0", "`address` to serve on (port 0: a free one)")
	noBrowser := fs.Bool("no-browser", false, "only serve (print the address), until interrupted")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		fs.Usage()
		return errUsage
	}
	c := appConfig{api: apiConfig{ctx: *ctxLen, be: be}, addr: *addr, browser: !*noBrowser, stdout: stdout, stderr: stderr}
	for _, m := range models {
		p, err := resolveModel(m)
		if err != nil {
			return err
		}
		c.api.models = append(c.api.models, p)
	}
	if len(c.api.models) == 0 {
		exe, err := os.Executable()
		if err != nil {
			return err
		}
		switch p, err := bundle.Find(exe); {
		case err != nil:
			return err
		case p != nil:
			c.api.models = []string{exe}
			if p.Size > 256<<20 {
				fmt.Fprintf(stdout, "forma: checking the model inside this file (%.1f GiB)\n", float64(p.Size)/(1<<30))
			}
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return serveApp(ctx, c)
}

// serveApp serves the chat page and the API on c.addr. With a browser it opens the page and returns once no page
// has been open for appGrace (or none came within appFirstPage); without one it serves until ctx ends.
func serveApp(ctx context.Context, c appConfig) error {
	h, closeAPI, err := newAPI(c.api)
	if err != nil {
		return err
	}
	defer closeAPI()
	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		return err
	}
	presence := &web.Presence{}
	mux := http.NewServeMux()
	mux.Handle(web.PresencePath, presence)
	mux.Handle("/", h)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var serveErr error
	served := make(chan struct{})
	go func() {
		defer close(served)
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			serveErr = err
			cancel()
		}
	}()
	url := "http://" + ln.Addr().String() + "/"
	if c.browser {
		fmt.Fprintf(c.stdout, "forma: chat at %s (it stops a little after its last page closes, or on Ctrl-C)\n", url)
		if err := openBrowser(url); err != nil {
			fmt.Fprintf(c.stderr, "forma: could not open a browser (%v): open %s yourself\n", err, url)
		}
		if presence.Wait(ctx, appFirstPage, appGrace) == nil {
			fmt.Fprintln(c.stdout, "forma: no chat page is open; stopping")
		}
	} else {
		fmt.Fprintf(c.stdout, "forma: serving the chat page at %s (Ctrl-C to stop)\n", url)
		<-ctx.Done()
	}
	sctx, scancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer scancel()
	err = srv.Shutdown(sctx)
	<-served
	return errors.Join(serveErr, err)
}

// desktopLaunch reports whether this start is a desktop launch, which runs the app: an executable carrying a
// model started without a command (no arguments, or only flags), or forma started with no arguments and no
// terminal (double-clicked).
func desktopLaunch(args []string) bool {
	flagsOnly := len(args) == 0 || (strings.HasPrefix(args[0], "-") && args[0] != "-h" && args[0] != "--help")
	if !flagsOnly {
		return false
	}
	if exe, err := os.Executable(); err == nil {
		if p, err := bundle.Find(exe); p != nil || err != nil {
			return true // a damaged bundle too: the app reports what is wrong with it
		}
	}
	return len(args) == 0 && !interactive()
}
