package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/forma-llm/forma/hub"
)

// modelClient is the hub client for the store and caches the environment names, read afresh for each command.
func modelClient() *hub.Client { return hub.FromEnv() }

// resolveModel turns the MODEL argument of any command into a file: a path, a name in the store, a model in
// another tool's store (hub.Client.Resolve says in which order). A name found nowhere is an error that says
// how to pull it.
func resolveModel(arg string) (string, error) {
	m, err := modelClient().Resolve(arg)
	if err != nil {
		return "", err
	}
	return m.Path, nil
}

// resolveOrPull is resolveModel for commands that run a model (run, serve): a Hub or registry reference that
// is not here is pulled first, after saying so, as `ollama run` does.
func resolveOrPull(arg string, stderr io.Writer) (string, error) {
	c := modelClient()
	m, err := c.Resolve(arg)
	var nf *hub.NotFoundError
	if !errors.As(err, &nf) || !hub.IsRemoteRef(arg) {
		if err != nil {
			return "", err
		}
		return m.Path, nil
	}
	fmt.Fprintf(stderr, "forma: %s is not here; pulling it\n", arg)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	pr := newPullProgress(stderr, false)
	m, err = c.Pull(ctx, arg, hub.PullOptions{Progress: pr.report})
	pr.finish(err)
	if err != nil {
		return "", err
	}
	return m.Path, nil
}
