package main

import (
	"fmt"
	"io"
	"path"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/forma-llm/forma/hub"
)

// pullProgress shows a pull's reports: on a terminal, one bar per file (each part of a split model on a line of
// its own) with bytes, speed and time left, drawn by mpb; elsewhere plain lines, a few per file, with no control
// characters; nothing when quiet.
type pullProgress struct {
	w     io.Writer
	quiet bool
	p     *mpb.Progress // nil when not on a terminal
	mu    sync.Mutex
	files map[string]*fileBar
}

type fileBar struct {
	bar    *mpb.Bar
	status atomic.Value // string shown after the bar
	last   time.Time
	step   int64 // plain output: the last tenth reported
}

func newPullProgress(w io.Writer, quiet bool) *pullProgress {
	pr := &pullProgress{w: w, quiet: quiet, files: map[string]*fileBar{}}
	if !quiet && isTerminal(w) {
		pr.p = mpb.New(mpb.WithOutput(w), mpb.WithWidth(32), mpb.WithRefreshRate(120*time.Millisecond))
	}
	return pr
}

// report takes one hub.Progress (hub calls it one report at a time).
func (pr *pullProgress) report(e hub.Progress) {
	if pr.quiet {
		return
	}
	pr.mu.Lock()
	defer pr.mu.Unlock()
	if pr.p == nil {
		pr.plain(e)
		return
	}
	fb := pr.files[e.File]
	if fb == nil {
		fb = &fileBar{last: time.Now()}
		fb.status.Store("")
		fb.bar = pr.p.AddBar(e.Total,
			mpb.PrependDecorators(decor.Name(path.Base(e.File), decor.WCSyncSpaceR)),
			mpb.AppendDecorators(
				decor.CountersKibiByte("% .1f / % .1f", decor.WCSyncSpace),
				decor.EwmaSpeed(decor.SizeB1024(0), "% .1f", 30, decor.WCSyncSpace),
				decor.OnComplete(decor.OnAbort(decor.EwmaETA(decor.ET_STYLE_GO, 30, decor.WC{C: decor.DextraSpace}), ""), ""),
				decor.Any(func(decor.Statistics) string { return fb.status.Load().(string) }, decor.WC{C: decor.DextraSpace}),
			))
		fb.bar.SetCurrent(e.Done) // what an earlier pull left is no speed
		pr.files[e.File] = fb
	}
	switch e.Status {
	case hub.StatusDownloading:
		now := time.Now()
		fb.bar.EwmaSetCurrent(e.Done, now.Sub(fb.last))
		fb.last = now
	case hub.StatusWaiting:
		fb.status.Store("waiting for another pull")
	case hub.StatusRetrying:
		fmt.Fprintf(pr.p, "%s: retrying in %s: %v\n", e.File, e.Wait.Round(time.Millisecond), e.Err)
	case hub.StatusVerifying:
		fb.status.Store("verifying")
	case hub.StatusDone, hub.StatusCached:
		fb.status.Store(map[hub.Status]string{hub.StatusDone: "done", hub.StatusCached: "already here"}[e.Status])
		fb.bar.SetTotal(e.Total, true)
	}
}

// plain writes a line when a file starts, at each tenth, on a retry, and at the end.
func (pr *pullProgress) plain(e hub.Progress) {
	fb := pr.files[e.File]
	if fb == nil {
		fb = &fileBar{step: -1}
		pr.files[e.File] = fb
	}
	switch e.Status {
	case hub.StatusStart:
		if e.Done > 0 {
			fmt.Fprintf(pr.w, "pulling %s (%s, resuming at %s)\n", e.File, hub.HumanBytes(e.Total), hub.HumanBytes(e.Done))
		} else {
			fmt.Fprintf(pr.w, "pulling %s (%s)\n", e.File, hub.HumanBytes(e.Total))
		}
		fb.step = tenth(e.Done, e.Total)
	case hub.StatusDownloading:
		if s := tenth(e.Done, e.Total); s > fb.step && s < 10 {
			fb.step = s
			fmt.Fprintf(pr.w, "%s: %d%% (%s / %s)\n", e.File, s*10, hub.HumanBytes(e.Done), hub.HumanBytes(e.Total))
		}
	case hub.StatusWaiting:
		fmt.Fprintf(pr.w, "%s: waiting for another pull of it\n", e.File)
	case hub.StatusRetrying:
		fmt.Fprintf(pr.w, "%s: retrying in %s: %v\n", e.File, e.Wait.Round(time.Millisecond), e.Err)
	case hub.StatusDone:
		fmt.Fprintf(pr.w, "%s: done\n", e.File)
	case hub.StatusCached:
		fmt.Fprintf(pr.w, "%s: already here\n", e.File)
	}
}

func tenth(done, total int64) int64 {
	if total <= 0 {
		return 10
	}
	return done * 10 / total
}

// finish waits for the bars' last drawing; after a failure the unfinished ones stop where they are.
func (pr *pullProgress) finish(err error) {
	if pr.p == nil {
		return
	}
	pr.mu.Lock()
	for _, fb := range pr.files {
		if err != nil && !fb.bar.Completed() {
			fb.bar.Abort(false)
		}
	}
	pr.mu.Unlock()
	pr.p.Wait()
}

// loadBar draws the loading of a model's weights on a terminal, and takes the line away when done.
type loadBar struct {
	p   *mpb.Progress
	bar *mpb.Bar
}

func newLoadBar(w io.Writer, label string) *loadBar {
	p := mpb.New(mpb.WithOutput(w), mpb.WithWidth(30), mpb.WithRefreshRate(100*time.Millisecond))
	bar := p.AddBar(0, mpb.BarRemoveOnComplete(),
		mpb.PrependDecorators(decor.Name(label, decor.WCSyncSpaceR)),
		mpb.AppendDecorators(decor.Percentage(decor.WCSyncSpace), decor.CountersKibiByte("% .1f / % .1f", decor.WCSyncSpace)))
	return &loadBar{p: p, bar: bar}
}

// update is a runtime.Options.Progress.
func (l *loadBar) update(done, total int64) {
	l.bar.SetTotal(total, false)
	l.bar.SetCurrent(done)
	if done >= total {
		l.bar.SetTotal(total, true)
	}
}

// finish removes the bar, whether the load finished or failed.
func (l *loadBar) finish() {
	if !l.bar.Completed() {
		l.bar.Abort(true)
	}
	l.p.Wait()
}
