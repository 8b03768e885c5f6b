module github.com/forma-llm/forma

go 1.26

require (
	github.com/ebitengine/purego v0.11.3
	github.com/x448/float16 v0.8.4
)
