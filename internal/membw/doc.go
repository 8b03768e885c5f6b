// Package membw measures this machine's memory read bandwidth, the bound on decode speed: generating a
// token reads every weight once, so tokens/s ≤ bandwidth / bytes of weights (docs/performance.md).
//
// It has no API; run its benchmark:
//
//	go test -bench Stream ./internal/membw
package membw
