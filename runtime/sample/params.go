package sample

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Kind is the type of a parameter's value.
type Kind uint8

const (
	Float Kind = iota // float32
	Int               // int
	Seed              // uint64, written -1 for RandomSeed
	Texts             // []string
)

// Param is one sampling parameter under each of its names, with its type, valid range and help. The command
// line's flags, the REPL's /set, the GGUF defaults and the HTTP APIs' request fields all come from Params.
type Param struct {
	Flag    string   // forma run's flag, named as llama.cpp's CLI flag ("temp"); "" for none
	Name    string   // the REPL's /set name, Ollama's option and the HTTP requests' field ("temperature")
	Aliases []string // other names /set accepts
	GGUF    string   // the GGUF key holding the model's default ("general.sampling.temp"); "" for none
	OpenAI  bool     // a field of OpenAI's requests (the others are llama-server's and Ollama's extensions)
	Kind    Kind
	Range   Range
	Help    string // flag usage: a word in backquotes names the value

	field func(*Options) any // *float32, *int, *uint64 or *[]string
}

// Range is an interval of valid values; ±Inf for no bound.
type Range struct {
	Min, Max         float64
	MinOpen, MaxOpen bool // the bound itself is outside
}

var (
	anyNumber  = Range{Min: math.Inf(-1), Max: math.Inf(1)}
	atLeast0   = Range{Min: 0, Max: math.Inf(1)}
	atLeastM1  = Range{Min: -1, Max: math.Inf(1)}
	unit       = Range{Min: 0, Max: 1}
	unitOpen0  = Range{Min: 0, Max: 1, MinOpen: true}
	unitOpen1  = Range{Min: 0, Max: 1, MaxOpen: true}
	atLeast1   = Range{Min: 1, Max: math.Inf(1)}
	mirostatVs = Range{Min: 0, Max: 2}
)

// params is the table, in llama.cpp's chain order after the plain ones.
var params = []Param{
	{Flag: "temp", Name: "temperature", Aliases: []string{"temp"}, GGUF: "general.sampling.temp", OpenAI: true,
		Kind: Float, Range: atLeast0, Help: "sampling `temperature` (0: greedy)",
		field: func(o *Options) any { return &o.Temperature }},
	{Flag: "top-k", Name: "top_k", GGUF: "general.sampling.top_k", Kind: Int, Range: atLeast0,
		Help: "top-k `k` (0: off)", field: func(o *Options) any { return &o.TopK }},
	{Flag: "top-p", Name: "top_p", GGUF: "general.sampling.top_p", OpenAI: true, Kind: Float, Range: unitOpen0,
		Help: "top-p `p` (1: off)", field: func(o *Options) any { return &o.TopP }},
	{Flag: "min-p", Name: "min_p", GGUF: "general.sampling.min_p", Kind: Float, Range: unitOpen1,
		Help: "min-p `p` (0: off)", field: func(o *Options) any { return &o.MinP }},
	{Flag: "typical", Name: "typical_p", Aliases: []string{"typical"}, Kind: Float, Range: unitOpen0,
		Help: "locally typical `p` (1: off)", field: func(o *Options) any { return &o.TypicalP }},
	{Flag: "repeat-penalty", Name: "repeat_penalty", GGUF: "general.sampling.penalty_repeat", Kind: Float,
		Range: atLeast0, Help: "repetition `penalty` (1: off)", field: func(o *Options) any { return &o.RepeatPenalty }},
	{Flag: "repeat-last-n", Name: "repeat_last_n", GGUF: "general.sampling.penalty_last_n", Kind: Int,
		Range: atLeastM1, Help: "`tokens` the penalties look back on (-1: the context)",
		field: func(o *Options) any { return &o.RepeatLastN }},
	{Flag: "presence-penalty", Name: "presence_penalty", OpenAI: true, Kind: Float, Range: anyNumber,
		Help: "presence `penalty` (0: off)", field: func(o *Options) any { return &o.PresPenalty }},
	{Flag: "frequency-penalty", Name: "frequency_penalty", OpenAI: true, Kind: Float, Range: anyNumber,
		Help: "frequency `penalty` (0: off)", field: func(o *Options) any { return &o.FreqPenalty }},
	{Flag: "dry-multiplier", Name: "dry_multiplier", Kind: Float, Range: atLeast0,
		Help:  "DRY: penalty `multiplier` for tokens that extend a repetition (0: off)",
		field: func(o *Options) any { return &o.DRYMultiplier }},
	{Flag: "dry-base", Name: "dry_base", Kind: Float, Range: atLeast1,
		Help:  "DRY: penalty `base`; the penalty is multiplier·base^(length − allowed length)",
		field: func(o *Options) any { return &o.DRYBase }},
	{Flag: "dry-allowed-length", Name: "dry_allowed_length", Kind: Int, Range: atLeast0,
		Help:  "DRY: repetitions up to this many `tokens` go unpenalized",
		field: func(o *Options) any { return &o.DRYAllowedLength }},
	{Flag: "dry-penalty-last-n", Name: "dry_penalty_last_n", Kind: Int, Range: atLeastM1,
		Help:  "DRY: `tokens` scanned for repetitions (-1: the context, 0: off)",
		field: func(o *Options) any { return &o.DRYPenaltyLastN }},
	{Flag: "dry-sequence-breaker", Name: "dry_sequence_breakers", Kind: Texts, Range: anyNumber,
		Help:  "DRY: `text` that ends a repetition (repeatable; replaces the defaults \\n : \" *; \"none\" for none)",
		field: func(o *Options) any { return &o.DRYSequenceBreakers }},
	{Flag: "top-nsigma", Name: "top_n_sigma", Kind: Float, Range: anyNumber,
		Help:  "keep the tokens within `n` standard deviations of the top logit (≤ 0: off)",
		field: func(o *Options) any { return &o.TopNSigma }},
	{Flag: "xtc-probability", Name: "xtc_probability", GGUF: "general.sampling.xtc_probability", Kind: Float,
		Range: unit, Help: "XTC: `chance` per token of removing the most likely tokens but one (0: off)",
		field: func(o *Options) any { return &o.XTCProbability }},
	{Flag: "xtc-threshold", Name: "xtc_threshold", GGUF: "general.sampling.xtc_threshold", Kind: Float,
		Range: unit, Help: "XTC: tokens at least this `probability` are removed (above 0.5: off)",
		field: func(o *Options) any { return &o.XTCThreshold }},
	{Flag: "mirostat", Name: "mirostat", GGUF: "general.sampling.mirostat", Kind: Int, Range: mirostatVs,
		Help:  "Mirostat `version`: 1, or 2 for 2.0, instead of the penalties and truncations (0: off)",
		field: func(o *Options) any { return &o.Mirostat }},
	{Flag: "mirostat-ent", Name: "mirostat_tau", GGUF: "general.sampling.mirostat_tau", Kind: Float,
		Range: atLeast0, Help: "Mirostat target `entropy` (tau)", field: func(o *Options) any { return &o.MirostatTau }},
	{Flag: "mirostat-lr", Name: "mirostat_eta", GGUF: "general.sampling.mirostat_eta", Kind: Float,
		Range: atLeast0, Help: "Mirostat learning `rate` (eta)", field: func(o *Options) any { return &o.MirostatEta }},
	{Flag: "seed", Name: "seed", OpenAI: true, Kind: Seed, Range: anyNumber,
		Help: "random `seed` (-1: a new one each run)", field: func(o *Options) any { return &o.Seed }},
	{Name: "min_keep", Kind: Int, Range: atLeast0, Help: "each truncating sampler keeps at least this many `tokens`",
		field: func(o *Options) any { return &o.MinKeep }},
}

// Params returns the table of sampling parameters (Options.LogitBias, a map, is not in it).
func Params() []Param { return slices.Clone(params) }

// Lookup finds a parameter by its name, an alias or its flag; '-' and '_' are the same.
func Lookup(name string) (Param, bool) {
	key := strings.ReplaceAll(name, "-", "_")
	for _, p := range params {
		if p.Name == key || slices.Contains(p.Aliases, key) || (p.Flag != "" && strings.ReplaceAll(p.Flag, "-", "_") == key) {
			return p, true
		}
	}
	return Param{}, false
}

// Set parses text into the parameter's field of o: a number; for Seed, -1 is RandomSeed; for Texts, one text,
// a JSON array of texts, or "none" for no texts. The range is checked by Validate.
func (p Param) Set(o *Options, text string) error {
	switch dst := p.field(o).(type) {
	case *[]string:
		switch {
		case text == "none":
			*dst = []string{}
		case strings.HasPrefix(text, "["):
			var list []string
			if err := json.Unmarshal([]byte(text), &list); err != nil {
				return fmt.Errorf("%s: %q is not a JSON array of strings", p.Name, text)
			}
			*dst = list
		default:
			*dst = []string{text}
		}
		return nil
	case *uint64:
		if text == "-1" {
			*dst = RandomSeed
			return nil
		}
		v, err := strconv.ParseUint(text, 10, 64)
		if err != nil {
			return fmt.Errorf("%s: %q is not a seed (an integer from 0, or -1)", p.Name, text)
		}
		*dst = v
		return nil
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
	if err != nil {
		return fmt.Errorf("%s: %q is not a number", p.Name, text)
	}
	return p.SetNumber(o, v)
}

// SetNumber sets a numeric parameter (a GGUF value, a JSON number); an integer parameter takes only integers.
func (p Param) SetNumber(o *Options, v float64) error {
	switch dst := p.field(o).(type) {
	case *float32:
		*dst = float32(v)
	case *int:
		if v != math.Trunc(v) || math.Abs(v) > 1<<31 {
			return fmt.Errorf("%s: %v is not an integer", p.Name, v)
		}
		*dst = int(v)
	case *uint64:
		switch {
		case v == -1:
			*dst = RandomSeed
		case v >= 0 && v == math.Trunc(v) && v < 1<<64:
			*dst = uint64(v)
		default:
			return fmt.Errorf("%s: %v is not a seed (an integer from 0, or -1)", p.Name, v)
		}
	default:
		return fmt.Errorf("%s takes a list of texts, not a number", p.Name)
	}
	return nil
}

// SetJSON sets the parameter from a request field's JSON value (null leaves it as it is).
func (p Param) SetJSON(o *Options, raw json.RawMessage) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if dst, ok := p.field(o).(*[]string); ok {
		var list []string
		if err := json.Unmarshal(raw, &list); err != nil {
			return fmt.Errorf("%s: want an array of strings", p.Name)
		}
		*dst = list
		return nil
	}
	if dst, ok := p.field(o).(*uint64); ok { // full uint64 precision
		var n json.Number
		if err := json.Unmarshal(raw, &n); err == nil {
			if v, err := strconv.ParseUint(n.String(), 10, 64); err == nil {
				*dst = v
				return nil
			}
		}
	}
	var v float64
	if err := json.Unmarshal(raw, &v); err != nil {
		return fmt.Errorf("%s: want a number, not %s", p.Name, raw)
	}
	return p.SetNumber(o, v)
}

// Value formats the parameter's value in o (as Set parses it).
func (p Param) Value(o Options) string {
	switch v := p.field(&o).(type) {
	case *float32:
		return strconv.FormatFloat(float64(*v), 'g', -1, 32)
	case *int:
		return strconv.Itoa(*v)
	case *uint64:
		if *v == RandomSeed {
			return "-1"
		}
		return strconv.FormatUint(*v, 10)
	case *[]string:
		b, _ := json.Marshal(*v)
		return string(b)
	}
	return ""
}

// Copy sets the parameter in dst to its value in src.
func (p Param) Copy(dst, src *Options) {
	switch d := p.field(dst).(type) {
	case *float32:
		*d = *p.field(src).(*float32)
	case *int:
		*d = *p.field(src).(*int)
	case *uint64:
		*d = *p.field(src).(*uint64)
	case *[]string:
		*d = slices.Clone(*p.field(src).(*[]string))
	}
}

// Check reports the parameter's value in o outside its range.
func (p Param) Check(o Options) error {
	var v float64
	switch x := p.field(&o).(type) {
	case *float32:
		v = float64(*x)
	case *int:
		v = float64(*x)
	default:
		return nil
	}
	r := p.Range
	lowOK := v > r.Min || (!r.MinOpen && v == r.Min)
	highOK := v < r.Max || (!r.MaxOpen && v == r.Max)
	if lowOK && highOK {
		return nil
	}
	return fmt.Errorf("%s %s must be %s", p.Name, p.Value(o), r)
}

func (r Range) String() string {
	num := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	switch {
	case math.IsInf(r.Min, -1) && math.IsInf(r.Max, 1):
		return "a number"
	case math.IsInf(r.Max, 1) && r.MinOpen:
		return "above " + num(r.Min)
	case math.IsInf(r.Max, 1):
		return "at least " + num(r.Min)
	}
	lo, hi := "[", "]"
	if r.MinOpen {
		lo = "("
	}
	if r.MaxOpen {
		hi = ")"
	}
	return "in " + lo + num(r.Min) + ", " + num(r.Max) + hi
}

// Validate reports the first parameter outside its range.
func (o Options) Validate() error {
	for _, p := range params {
		if err := p.Check(o); err != nil {
			return err
		}
	}
	return nil
}
