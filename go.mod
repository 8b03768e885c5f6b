module github.com/forma-llm/forma

go 1.26.0

require github.com/x448/float16 v0.8.4

require golang.org/x/sys v0.50.0
