package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// modelsDirEnv names the folder where `forma run NAME` looks for NAME.gguf.
const modelsDirEnv = "FORMA_MODELS"

// modelsDir returns $FORMA_MODELS, or ~/.forma/models.
func modelsDir() string {
	if d := os.Getenv(modelsDirEnv); d != "" {
		return d
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(".forma", "models")
	}
	return filepath.Join(home, ".forma", "models")
}

// resolveModel turns the MODEL argument into a file: an existing file is taken as it is, a path with a folder
// must exist; otherwise NAME is looked up in the models folder, matching NAME.gguf or NAME case-insensitively,
// then as the start of a file name. Several matches are an error listing them.
func resolveModel(arg string) (string, error) {
	if st, err := os.Stat(arg); err == nil && !st.IsDir() {
		return arg, nil
	}
	if strings.ContainsRune(arg, '/') || strings.ContainsRune(arg, os.PathSeparator) {
		return "", fmt.Errorf("model file %s: %w", arg, os.ErrNotExist)
	}
	dir := modelsDir()
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	var exact, prefix []string
	lower := strings.ToLower(arg)
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		n := strings.ToLower(e.Name())
		stem := strings.TrimSuffix(n, ".gguf")
		switch {
		case n == lower || n == lower+".gguf":
			exact = append(exact, e.Name())
		case strings.HasSuffix(n, ".gguf") && strings.HasPrefix(stem, lower):
			prefix = append(prefix, e.Name())
		}
	}
	for _, c := range [][]string{exact, prefix} {
		switch len(c) {
		case 0:
			continue
		case 1:
			return filepath.Join(dir, c[0]), nil
		}
		sort.Strings(c)
		return "", fmt.Errorf("model name %q matches %d files in %s: %s", arg, len(c), dir, strings.Join(c, ", "))
	}
	return "", fmt.Errorf("model %q: no such file, and no %s.gguf in %s (set %s to another folder)", arg,
		strings.TrimSuffix(arg, ".gguf"), dir, modelsDirEnv)
}

// progressBar draws a one-line loading bar on a terminal.
type progressBar struct {
	w     io.Writer
	label string
	pct   int
	start time.Time
}

const barWidth = 30

func newProgressBar(w io.Writer, label string) *progressBar {
	return &progressBar{w: w, label: label, pct: -1, start: time.Now()}
}

func (p *progressBar) update(done, total int64) {
	if total <= 0 {
		return
	}
	pct := int(done * 100 / total)
	if pct == p.pct {
		return
	}
	p.pct = pct
	fill := pct * barWidth / 100
	fmt.Fprintf(p.w, "\r%s [%s%s] %3d%% %s / %s", p.label, strings.Repeat("=", fill), strings.Repeat(" ", barWidth-fill),
		pct, humanBytes(done), humanBytes(total))
}

// clear erases the bar's line.
func (p *progressBar) clear() { fmt.Fprint(p.w, "\r\033[K") }

func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.2f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
