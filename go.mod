module github.com/forma-llm/forma

go 1.26.0

require (
	github.com/ardanlabs/jinja v1.8.0
	github.com/creack/pty v1.1.24
	github.com/dlclark/regexp2/v2 v2.13.0
	github.com/ebitengine/purego v0.11.3
	github.com/x448/float16 v0.8.4
	golang.org/x/sys v0.50.0
	golang.org/x/term v0.48.0
	golang.org/x/text v0.44.0
)

require github.com/santhosh-tekuri/jsonschema/v6 v6.0.2
