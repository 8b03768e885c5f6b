//go:build race

package jsonschema_test

const raceEnabled = true
