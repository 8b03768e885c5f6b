package sample

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestParamsCoverOptions: every field of Options but LogitBias has one parameter, and every name is unique.
func TestParamsCoverOptions(t *testing.T) {
	var o Options
	base := reflect.ValueOf(&o).Pointer()
	byOffset := map[uintptr]string{}
	names := map[string]bool{}
	for _, p := range Params() {
		off := reflect.ValueOf(p.field(&o)).Pointer() - base
		if prev, dup := byOffset[off]; dup {
			t.Errorf("%s and %s set the same field", prev, p.Name)
		}
		byOffset[off] = p.Name
		own := map[string]bool{}
		for _, n := range append([]string{p.Name, strings.ReplaceAll(p.Flag, "-", "_")}, p.Aliases...) {
			if n != "" {
				own[n] = true
			}
		}
		for n := range own {
			if names[n] {
				t.Errorf("name %q used by two parameters", n)
			}
			names[n] = true
		}
		if p.Help == "" || !strings.Contains(p.Help, "`") {
			t.Errorf("%s: help %q names no value", p.Name, p.Help)
		}
	}
	typ := reflect.TypeOf(o)
	for i := range typ.NumField() {
		f := typ.Field(i)
		if _, ok := byOffset[f.Offset]; !ok && f.Name != "LogitBias" {
			t.Errorf("Options.%s has no parameter", f.Name)
		}
	}
}

func TestParamSet(t *testing.T) {
	o := Defaults()
	for _, tc := range []struct{ name, value, want string }{
		{"temperature", "0.2", "0.2"},
		{"temp", "0.3", "0.3"},
		{"top-k", "7", "7"},
		{"typical", "0.9", "0.9"},
		{"mirostat_ent", "4.5", "4.5"}, // the flag's name, with '_'
		{"seed", "-1", "-1"},
		{"seed", "18446744073709551614", "18446744073709551614"},
		{"dry_sequence_breakers", "none", "[]"},
		{"dry_sequence_breakers", `["\n","###"]`, `["\n","###"]`},
		{"dry-sequence-breaker", "###", `["###"]`},
	} {
		p, ok := Lookup(tc.name)
		if !ok {
			t.Fatalf("Lookup(%q) failed", tc.name)
		}
		if err := p.Set(&o, tc.value); err != nil {
			t.Fatalf("%s %s: %v", tc.name, tc.value, err)
		}
		if got := p.Value(o); got != tc.want {
			t.Errorf("%s = %s: reads back %s, want %s", tc.name, tc.value, got, tc.want)
		}
	}
	for _, tc := range []struct{ name, value, want string }{
		{"top_k", "2.5", "not an integer"},
		{"top_k", "many", "not a number"},
		{"seed", "-2", "not a seed"},
		{"dry_sequence_breakers", "[1]", "not a JSON array"},
	} {
		p, _ := Lookup(tc.name)
		if err := p.Set(&o, tc.value); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %s: %v, want %q", tc.name, tc.value, err, tc.want)
		}
	}
	if _, ok := Lookup("bogus"); ok {
		t.Error("Lookup(bogus) succeeded")
	}
}

func TestParamJSON(t *testing.T) {
	o := Defaults()
	body := `{"temperature": 0.5, "top_k": 3, "seed": 12345678901234567890, "dry_sequence_breakers": ["\n"], "mirostat": null}`
	var fields map[string]json.RawMessage
	if err := json.Unmarshal([]byte(body), &fields); err != nil {
		t.Fatal(err)
	}
	for name, raw := range fields {
		p, _ := Lookup(name)
		if err := p.SetJSON(&o, raw); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	if o.Temperature != 0.5 || o.TopK != 3 || o.Seed != 12345678901234567890 || len(o.DRYSequenceBreakers) != 1 || o.Mirostat != 0 {
		t.Errorf("%+v", o)
	}
	p, _ := Lookup("top_k")
	if err := p.SetJSON(&o, json.RawMessage(`"3"`)); err == nil {
		t.Error("a string for top_k was accepted")
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		set  func(*Options)
		want string
	}{
		{func(o *Options) { o.Temperature = -1 }, "temperature -1 must be at least 0"},
		{func(o *Options) { o.TopP = 0 }, "top_p 0 must be in (0, 1]"},
		{func(o *Options) { o.MinP = 1 }, "min_p 1 must be in [0, 1)"},
		{func(o *Options) { o.RepeatLastN = -2 }, "repeat_last_n -2 must be at least -1"},
		{func(o *Options) { o.DRYBase = 0.5 }, "dry_base 0.5 must be at least 1"},
		{func(o *Options) { o.XTCProbability = 1.5 }, "xtc_probability 1.5 must be in [0, 1]"},
		{func(o *Options) { o.Mirostat = 3 }, "mirostat 3 must be in [0, 2]"},
		{func(o *Options) { o.TopK = -1 }, "top_k -1 must be at least 0"},
	} {
		o := Defaults()
		tc.set(&o)
		if err := o.Validate(); err == nil || err.Error() != tc.want {
			t.Errorf("%v, want %q", err, tc.want)
		}
		if _, err := New(o); err == nil {
			t.Errorf("New accepted %q", tc.want)
		}
	}
	if err := Defaults().Validate(); err != nil {
		t.Errorf("defaults: %v", err)
	}
}
